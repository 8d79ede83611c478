import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";
import { isUuid, newId } from "@tidings/core";

/**
 * Each request gets a uuid that is logged with every line about it, echoed as `x-request-id`, and later
 * stored in the metadata of the events it causes. A proxy may pass its own id; only a uuid is taken, so
 * a client cannot write arbitrary text into logs and events.
 */
export function requestId(request: IncomingMessage): string {
  const given = request.headers["x-request-id"];
  return typeof given === "string" && isUuid(given) ? given : newId();
}

export function echoRequestId(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
}
