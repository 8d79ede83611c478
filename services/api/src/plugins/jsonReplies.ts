import type { FastifyInstance } from "fastify";
import { errorTable } from "../errorTable.js";

/**
 * The `resend` SDK parses every 2xx body as JSON and turns an empty one (a bare 204) into a client-side
 * error (docs/wire-compatibility.md §1.4). A route that replies without a body is a bug: it is answered as an
 * unexpected error, so the route's own tests fail at once.
 */
export function requireJsonReplies(app: FastifyInstance): void {
  // A callback hook: it runs on every reply and waits for nothing.
  app.addHook("onSend", (request, reply, payload, done) => {
    const empty = payload === undefined || payload === null || payload === "";
    if (!empty || request.method === "HEAD" || reply.statusCode === 304) return done(null, payload);
    request.log.error({ url: request.url, statusCode: reply.statusCode }, "a route replied without a body");
    reply.code(500).type("application/json");
    done(null, JSON.stringify({ ...errorTable.application_error, message: "The server produced an empty response." }));
  });
}
