import type { FastifyReply } from "fastify";

/**
 * Success statuses of docs/wire-compatibility.md §2.3, so a route says which kind of success it is rather than a
 * number. Every one carries a JSON body: the SDK treats an empty 2xx as a failure (docs/wire-compatibility.md §1.4).
 */
// Any route's reply, whatever its server, schema and type provider: each helper keeps the route's own
// reply type, so `body` is checked against the route's schema. Fastify's parameters are constrained
// generics that `unknown` does not satisfy.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyReply = FastifyReply<any, any, any, any, any, any, any, any>;

/** 201, for a POST that creates a resource. */
export function created<R extends AnyReply>(reply: R, body: Parameters<R["send"]>[0]): R {
  return reply.code(201).send(body) as R;
}

/** 202, for work accepted to happen later (`POST /events/send`). */
export function accepted<R extends AnyReply>(reply: R, body: Parameters<R["send"]>[0]): R {
  return reply.code(202).send(body) as R;
}

/** 200, for everything else, sends included (`POST /emails` answers 200, not 201). */
export function ok<R extends AnyReply>(reply: R, body: Parameters<R["send"]>[0]): R {
  return reply.code(200).send(body) as R;
}
