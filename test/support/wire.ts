import type { Resend } from "resend";
import { expect } from "vitest";

/** What the contract's ids and timestamps look like on the wire (docs/wire-compatibility.md §2.2). */
export const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const wireTimestamp = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/;

type SdkResult = { error: { name: string } | null; headers: Record<string, string> | null };

/**
 * Calls the SDK again after a 429, waiting what its `retry-after` says: the bootstrap team has the
 * default limit of 10 requests/s, which e2e tests may reach while the limit is not what they test.
 */
export async function paced<Result extends SdkResult>(call: () => PromiseLike<Result>): Promise<Result> {
  for (;;) {
    const result = await call();
    if (result.error?.name !== "rate_limit_exceeded") return result;
    await new Promise((resolve) => setTimeout(resolve, Number(result.headers?.["retry-after"] ?? 1) * 1000));
  }
}

type SdkData<Data> = { data: Data | null; error: { name: string; message: string } | null; headers: Record<string, string> | null };

/** An SDK call, paced, whose error must be null: its data, or the test fails showing the error. */
export async function succeeded<Data>(call: () => PromiseLike<SdkData<Data>>): Promise<Data> {
  const { data, error } = await paced(call);
  expect(error).toBeNull();
  return data!;
}

/**
 * A request the SDK's types forbid, sent on purpose (fields it refuses together, a field it does not know): the
 * body or query as the wire has them, through the SDK's own transport, so the answer has the SDK's shape.
 */
export const outsideSdkTypes = {
  post: <Data>(resend: Resend, path: string, body: Record<string, unknown>) => resend.post<Data>(path, body),
  get: <Data>(resend: Resend, path: string, query: Record<string, string>) => resend.get<Data>(`${path}?${new URLSearchParams(query)}`),
};
