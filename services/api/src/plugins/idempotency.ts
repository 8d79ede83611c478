import { createHash, type Hash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { deterministicId, TidingsError, type Sealer } from "@tidings/core";
import type { Database } from "@tidings/postgres";
import {
  completeIdempotencyKey,
  pruneIdempotencyKeys,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
  type IdempotencyScope,
  type ReservationTiming,
} from "./idempotencyStore.js";
import { runPeriodically } from "./periodicTask.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * Whether the route honours `Idempotency-Key`. Unset, a POST route does when it answers 201 (it
     * creates something); `POST /emails` and `POST /emails/batch` answer 200 and set it to true. A route
     * whose body is streamed (multipart imports) must set it to false: its body cannot be compared.
     */
    idempotency?: boolean;
  }
  interface FastifyRequest {
    idempotency: { scope: IdempotencyScope; requestHash: string; owned: boolean; generation?: string } | undefined;
  }
}

export interface IdempotencyOptions {
  database: Database;
  /**
   * Seals each stored answer: an answer may hold a secret shown once (the token of a new API key, a
   * webhook's signing secret), and the replay must show it again, so it cannot be redacted; sealed, it is
   * not readable from the database either. Without a sealer, answers are stored as sent.
   */
  sealer?: Sealer;
  timing?: Partial<ReservationTiming>;
  /** Pause between tries to record an answer or release a key while the database refuses (default 1 s). */
  retryMs?: number;
  pruneEveryMs?: number;
}

export const maxIdempotencyKeyLength = 256;

/**
 * `Idempotency-Key` (docs/wire-compatibility.md §5), for every route that creates something. The first request with a
 * key reserves it (a unique row, see `reserveIdempotencyKey`), runs, and stores its answer; a repeat
 * with the same body within 24 h gets that answer again, status and body, without running.
 *
 * Which answers are kept: only 2xx. Any other answer releases the key, so the client can retry with it:
 * a 5xx because the failure is ours, and a 4xx because a refused request changed nothing (nothing is
 * half-written, docs/architecture.md §6), so running it again cannot do anything twice, and a client that fixed the
 * cause (verified the domain, created the template) should not have to change its key. A body the route's
 * schema refuses never reserves the key at all: the key is taken after validation.
 *
 * Install after the auth plugin and before any route: the hooks are attached to each route that takes
 * keys as it is added, so other routes pay nothing.
 */
export function installIdempotency(app: FastifyInstance, options: IdempotencyOptions): void {
  const { database, sealer } = options;
  const timing: ReservationTiming = { keepSeconds: 24 * 3600, abandonedAfterSeconds: 60, ...options.timing };
  const retryMs = options.retryMs ?? 1_000;
  app.decorateRequest("idempotency", undefined);

  const readKey = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const caller = request.auth;
    const key = request.headers["idempotency-key"];
    if (!caller || key === undefined) return done();
    if (typeof key !== "string" || key.length < 1 || key.length > maxIdempotencyKeyLength) {
      return done(
        new TidingsError(
          "invalid_idempotency_key",
          `The \`Idempotency-Key\` header must be between 1 and ${maxIdempotencyKeyLength} characters.`,
        ),
      );
    }
    const scope = { teamId: caller.teamId, method: request.method, path: pathOf(request.url), key };
    request.idempotency = { scope, requestHash: fingerprint(request.body), owned: false };
    done();
  };

  const reserve = async (request: FastifyRequest, reply: FastifyReply) => {
    const held = request.idempotency;
    if (!held) return;
    const reservation = await reserveIdempotencyKey(database, held.scope, held.requestHash, request.id, timing);
    switch (reservation.outcome) {
      case "reserved":
        held.owned = true;
        held.generation = reservation.generation;
        return;
      case "replay":
        return reply
          .code(reservation.status)
          .type("application/json; charset=utf-8")
          .header("idempotent-replayed", "true")
          .send(isSealed(reservation.body) ? opener(sealer).openText(reservation.body) : reservation.body);
      case "mismatch":
        throw new TidingsError(
          "invalid_idempotent_request",
          "This `Idempotency-Key` was already used with a different request body. Use a new key for a different request.",
        );
      case "in_flight":
        throw new TidingsError(
          "concurrent_idempotent_requests",
          "A request with this `Idempotency-Key` is still in progress. Try again later with the same key.",
        );
    }
  };

  /**
   * Records the answer to a key, or releases it; the answer itself stands whatever happens here. When the
   * database refuses (it is away for a moment), this is tried again in the background until the key would
   * be abandoned anyway: left reserved, the key answers 409 to each of the client's retries until then.
   */
  let closing = false;
  app.addHook("onClose", async () => {
    closing = true;
  });
  const settle = async (request: FastifyRequest, what: string, run: () => Promise<void>) => {
    try {
      await run();
      return;
    } catch (error) {
      request.log.error(
        { err: error, idempotencyKey: request.idempotency?.scope.key },
        `could not ${what}; trying again in the background`,
      );
    }
    const giveUpAt = Date.now() + timing.abandonedAfterSeconds * 1_000;
    void (async () => {
      while (!closing && Date.now() < giveUpAt) {
        await new Promise((resolve) => setTimeout(resolve, retryMs).unref());
        if (
          await run().then(
            () => true,
            () => false,
          )
        )
          return request.log.info(`${what}: done once the database answered`);
      }
    })();
  };

  const answer = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const held = request.idempotency;
    if (!held?.owned) return payload;
    held.owned = false;
    const keep = reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === "string";
    if (keep)
      await settle(request, "record the answer to an idempotent request", () =>
        completeIdempotencyKey(database, held.scope, request.id, reply.statusCode, sealer ? sealer.seal(payload) : payload),
      );
    else await settle(request, "release an idempotency key", () => releaseIdempotencyKey(database, held.scope, request.id));
    return payload;
  };

  // A request that ends without a reply (the client went away) must not keep its key until it is abandoned.
  const releaseUnanswered = async (request: FastifyRequest) => {
    const held = request.idempotency;
    if (!held?.owned) return;
    held.owned = false;
    await settle(request, "release an idempotency key", () => releaseIdempotencyKey(database, held.scope, request.id));
  };

  app.addHook("onRoute", (route) => {
    if (!takesIdempotencyKeys(route)) return;
    route.preValidation = [...hooks(route.preValidation), readKey];
    route.preHandler = [...hooks(route.preHandler), reserve];
    route.onSend = [...hooks(route.onSend), answer];
    route.onResponse = [...hooks(route.onResponse), releaseUnanswered];
  });

  runPeriodically(app, {
    name: "prune idempotency keys",
    everyMs: options.pruneEveryMs ?? 10 * 60_000,
    run: () => pruneIdempotencyKeys(database),
  });
}

/**
 * The id of the `index`th thing of `kind` this request creates. Under an Idempotency-Key it is the same on
 * every run of the request until the key expires: a run cut off after it wrote (its process killed, or its
 * connection lost with the commit) is taken over by the client's retry, which then writes under the same
 * ids, and the store takes that for the repeat it is. Undefined without a key: the caller makes a new id.
 */
export function idempotentId(request: FastifyRequest, kind: string, index: number): string | undefined {
  const held = request.idempotency;
  if (!held?.owned || held.generation === undefined) return undefined;
  const { teamId, method, path, key } = held.scope;
  return deterministicId("idempotent", kind, teamId, method, path, key, held.requestHash, held.generation, String(index));
}

/** A sealed value starts `v1.`; a JSON reply never does. */
const isSealed = (body: string) => body.startsWith("v1.");

function opener(sealer: Sealer | undefined): Sealer {
  if (!sealer) throw new Error("a stored idempotent answer is sealed, and this instance has no secret to open it");
  return sealer;
}

export function takesIdempotencyKeys(route: Pick<RouteOptions, "method" | "config" | "schema">): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.includes("POST")) return false;
  const configured = (route.config as { idempotency?: boolean } | undefined)?.idempotency;
  if (configured !== undefined) return configured;
  const responses = (route.schema?.response ?? {}) as Record<string, unknown>;
  return "201" in responses;
}

function hooks<Hook>(existing: Hook | Hook[] | undefined): Hook[] {
  if (existing === undefined) return [];
  return Array.isArray(existing) ? existing : [existing];
}

/** The endpoint part of the scope: the path as requested, without the query, slashes normalised as the router does. */
function pathOf(url: string): string {
  const query = url.indexOf("?");
  const path = (query === -1 ? url : url.slice(0, query)).replace(/\/{2,}/g, "/");
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/**
 * A digest of the body as the client sent it (before the route's schema stripped anything), with object
 * keys in sorted order: a client that serialises the same request with its keys in another order is
 * sending the same request. Fed to the hash piece by piece, so a large body is not copied into one string.
 */
export function fingerprint(body: unknown): string {
  const hash = createHash("sha256");
  feed(hash, body);
  return hash.digest("base64url");
}

function feed(hash: Hash, value: unknown): void {
  if (Array.isArray(value)) {
    hash.update("[");
    value.forEach((item, i) => {
      if (i > 0) hash.update(",");
      feed(hash, item);
    });
    hash.update("]");
  } else if (value !== null && typeof value === "object") {
    hash.update("{");
    Object.keys(value)
      .sort()
      .forEach((key, i) => {
        hash.update(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`);
        feed(hash, (value as Record<string, unknown>)[key]);
      });
    hash.update("}");
  } else {
    hash.update(JSON.stringify(value) ?? "null");
  }
}
