import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { TidingsError } from "@tidings/core";
import type { RateBuckets, RateDecision } from "./rateLimitBuckets.js";

export interface RateLimitOptions {
  buckets: RateBuckets;
  /** The team's requests per second; may answer from a cache without a promise. */
  limitOf: (teamId: string) => number | Promise<number>;
}

/**
 * Per-team rate limiting (docs/wire-compatibility.md §4). Every authenticated response carries `ratelimit-limit`,
 * `ratelimit-remaining`, `ratelimit-reset` and `ratelimit-policy`, errors included, because the headers
 * are set before anything else can fail; a request over the limit is answered 429 `rate_limit_exceeded`
 * with `retry-after`, before its body is read. Unauthenticated routes (/health, /docs) are not limited.
 *
 * Install right after the auth plugin, on the same `onRequest` stage, so that `request.auth` is set.
 * Written with callbacks rather than async functions: this runs on every request, and in embedded mode
 * neither the limit (cached) nor the bucket (in memory) needs to wait for anything.
 */
export function installRateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  const { buckets, limitOf } = options;
  app.addHook("onRequest", (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const caller = request.auth;
    if (!caller) return done();
    const decide = (limit: number): void => {
      const decision = buckets.take(caller.teamId, limit);
      if (decision instanceof Promise) decision.then((d) => answer(reply, limit, d, done), done);
      else answer(reply, limit, decision, done);
    };
    const limit = limitOf(caller.teamId);
    if (limit instanceof Promise) limit.then(decide, done);
    else decide(limit);
  });
}

function answer(reply: FastifyReply, limit: number, decision: RateDecision, done: HookHandlerDoneFunction): void {
  reply.headers({
    "ratelimit-limit": limit,
    "ratelimit-remaining": Math.max(0, Math.floor(decision.tokens)),
    // Seconds until the bucket is full again; with a one-second window that is at most 1.
    "ratelimit-reset": Math.max(1, Math.ceil((limit - decision.tokens) / limit)),
    "ratelimit-policy": `${limit};w=1`,
  });
  if (decision.allowed) return done();
  reply.header("retry-after", Math.max(1, Math.ceil((1 - decision.tokens) / limit)));
  done(
    new TidingsError(
      "rate_limit_exceeded",
      `Too many requests: this team may make ${limit} requests per second. Retry after the \`retry-after\` seconds.`,
    ),
  );
}
