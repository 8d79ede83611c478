import type { FastifyRequest } from "fastify";
import type { EventMetadata, Position } from "@tidings/eventstore";
import { requireAuth, type RequestAuth } from "./plugins/auth.js";
import { requestMetadata } from "./requestMetadata.js";
import type { ApiServices } from "./services.js";

/** A write as a route runs it: for the caller, under the metadata of the events its request causes. */
export type CallerWrite<Result> = (auth: RequestAuth, metadata: EventMetadata) => Promise<Result>;

/** Waits until the read models hold every write that appended something (read-your-writes, docs/architecture.md §1). */
export async function settle(services: Pick<ApiServices, "waitFor">, positions: readonly (Position | undefined)[]): Promise<void> {
  for (const position of positions) if (position) await services.waitFor(position);
}

/**
 * Runs a request's write for its caller and answers once the read models show it, so a client that reads
 * after the reply sees what it wrote. The one way a route writes: routes say what to write and what to reply.
 */
export function callerWrites(services: ApiServices) {
  return async <Result extends { position?: Position | undefined }>(request: FastifyRequest, write: CallerWrite<Result>) => {
    const auth = requireAuth(request);
    const result = await write(auth, requestMetadata(request, auth, services.clock));
    await settle(services, [result.position]);
    return result;
  };
}
