import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { loadConfig, newId } from "@tidings/core";
import type { ApiInstance } from "../app.js";
import { createTestServices, testApiSettings, type TestKey, type TestServices } from "../testing/testServices.js";
import { requestLogIds } from "../testing/requestLogRows.js";

/** The policies behind the real auth, in the app `tidings serve` builds: what a client with a real key sees. */

let t: TestServices;
let app: ApiInstance;
let admin: TestKey;

beforeAll(async () => {
  t = await createTestServices(loadConfig({ ...testApiSettings, TIDINGS_SECRET: "s".repeat(40) }));
  app = await t.app();
  admin = await t.aKey("policies-team");
});
afterAll(() => t?.dispose());

const call = (key: TestKey | undefined, method: "GET" | "POST", url: string, options: { body?: unknown; idempotencyKey?: string } = {}) =>
  app.inject({
    method,
    url,
    headers: {
      ...key?.headers,
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {}),
    },
    ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
  });

describe("behind the real auth", () => {
  it("creates one API key for a repeated POST /api-keys with one Idempotency-Key, and keeps the replayed token sealed", async () => {
    const key = newId();
    const first = await call(admin, "POST", "/api-keys", { body: { name: "Idempotent" }, idempotencyKey: key });
    const again = await call(admin, "POST", "/api-keys", { body: { name: "Idempotent" }, idempotencyKey: key });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    const listed = (await call(admin, "GET", "/api-keys")).json() as { data: { name: string }[] };
    expect(listed.data.filter((k) => k.name === "Idempotent")).toHaveLength(1);

    const stored = await sql<{ body: string }>`SELECT response_body AS body FROM api_idempotency_keys WHERE key = ${key}`.execute(
      t.test.database.db,
    );
    expect(stored.rows[0]!.body).toMatch(/^v1\./);
    expect(stored.rows[0]!.body).not.toContain(first.json().token);
  });

  it("logs the request under the id its events carry, so an auditor can join them, with the token redacted", async () => {
    const created = await call(admin, "POST", "/api-keys", { body: { name: "Audited" } });
    const [event] = await t.store.readStream(`apikey-${created.json().id}`);
    const requestId = event!.metadata.requestId as string;
    expect(requestId).toBe(created.headers["x-request-id"]);

    const log = await call(admin, "GET", `/logs/${requestId}`);
    expect(log.statusCode).toBe(200);
    expect(log.json()).toMatchObject({ object: "log", id: requestId, endpoint: "/api-keys", method: "POST", response_status: 201 });
    expect(log.json().response_body).toEqual({ object: "api_key", id: created.json().id, token: "[redacted]" });
    expect(log.body).not.toContain(admin.token);
  });

  it("limits a team to its rate, with the headers on every answer, and logs the refused requests too", async () => {
    const limited = await t.aKey(`limited-${newId()}`, { rateLimit: 2 });
    // Sent together, so they fall in one window of the limit however slow the machine: one after
    // another, four requests spread over more than a second on a loaded machine, and none was refused.
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(limited, "GET", "/api-keys")));
    expect(answers.filter((a) => a.statusCode === 200).length).toBeGreaterThanOrEqual(2);
    const refused = answers.find((a) => a.statusCode === 429)!;
    expect(refused.json()).toMatchObject({ statusCode: 429, name: "rate_limit_exceeded" });
    expect(refused.headers).toMatchObject({
      "ratelimit-limit": "2",
      "ratelimit-policy": "2;w=1",
      "ratelimit-remaining": "0",
      "retry-after": "1",
    });
    expect(answers.find((a) => a.headers["ratelimit-remaining"] === "1")?.headers).toMatchObject({ "ratelimit-limit": "2" });

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const log = await call(limited, "GET", `/logs/${refused.headers["x-request-id"]}`);
    expect(log.json()).toMatchObject({ response_status: 429, endpoint: "/api-keys" });
  });

  it("neither limits nor logs the routes that need no key", async () => {
    const health = await call(undefined, "GET", "/health");
    expect(health.statusCode).toBe(200);
    expect(health.headers["ratelimit-limit"]).toBeUndefined();
    expect(await requestLogIds(t.test.database, [health.headers["x-request-id"] as string])).toEqual([]);
  });
});
