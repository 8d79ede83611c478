import type { FastifyInstance } from "fastify";
import { timeOrderedId } from "@tidings/core";

/**
 * Each request gets a uuid that is logged with every line about it, echoed as `x-request-id`, and later
 * stored in the metadata of the events it causes and used as its request log's id. It is always ours: a
 * client-chosen id could collide with another request's log row and join unrelated events in an audit.
 * Time-ordered (v7): the request logs' primary key then grows at its end, where random ids made every
 * insert touch a random page of an index as large as the logs kept.
 */
export function requestId(): string {
  return timeOrderedId();
}

/** A callback hook, not an async one: every request runs it, and it has nothing to wait for. */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });
}
