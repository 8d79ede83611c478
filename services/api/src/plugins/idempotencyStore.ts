import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import type { ApiTables } from "../apiMigrations.js";

/** docs/wire-compatibility.md §5: a key is scoped to the team, the HTTP method and the endpoint. */
export interface IdempotencyScope {
  teamId: string;
  method: string;
  path: string;
  key: string;
}

export type Reservation =
  /**
   * This request owns the key: run it, then `completeIdempotencyKey` or `releaseIdempotencyKey`.
   * `generation` names the key's life: it stays the same for every run under the key (after its process
   * died, or a failure released it) until the key expires, so each run can give what it creates the ids
   * the first run gave it.
   */
  | { outcome: "reserved"; generation: string }
  /** The key already answered this same request: send that answer again. */
  | { outcome: "replay"; status: number; body: string }
  /** The key was used with another body. */
  | { outcome: "mismatch" }
  /** The request that owns the key is still running. */
  | { outcome: "in_flight" };

export interface ReservationTiming {
  /** How long an answered key is replayed: 24 h (docs/wire-compatibility.md §5). */
  keepSeconds: number;
  /**
   * After this long, an unanswered key is taken to belong to a request that died with its process (the
   * process crashed between reserving and answering) and may be taken over, instead of answering 409
   * for the key's whole 24 h. It must be longer than any request can run.
   */
  abandonedAfterSeconds: number;
}

/**
 * Reserves the key for this request, or says why not. The reservation is the primary key itself: one
 * `INSERT … ON CONFLICT` decides, atomically across api instances, which of several concurrent
 * requests owns the key. The same statement takes over a key that has expired or was abandoned. When it
 * reserves nothing, the row that won is read to tell a replay from a mismatch or a request in flight;
 * if that row is already gone (its request failed and released it), the reservation is tried again.
 */
export async function reserveIdempotencyKey(
  database: Database,
  scope: IdempotencyScope,
  requestHash: string,
  requestId: string,
  timing: ReservationTiming,
): Promise<Reservation> {
  for (;;) {
    // A key taken over before it expired (abandoned, or released) keeps its expiry: the 24 h count from
    // its first use, and the expiry is the key's generation.
    const reserved = await sql<{ generation: string }>`
      INSERT INTO api_idempotency_keys AS k (team_id, method, path, key, request_hash, owner_request_id, reserved_at, expires_at)
      VALUES (${scope.teamId}, ${scope.method}, ${scope.path}, ${scope.key}, ${requestHash}, ${requestId},
              now(), now() + make_interval(secs => ${timing.keepSeconds}::float8))
      ON CONFLICT (team_id, method, path, key) DO UPDATE SET
        request_hash = excluded.request_hash, owner_request_id = excluded.owner_request_id,
        reserved_at = excluded.reserved_at,
        expires_at = CASE WHEN k.expires_at <= now() THEN excluded.expires_at ELSE k.expires_at END,
        response_status = NULL, response_body = NULL
      WHERE k.expires_at <= now()
         OR (k.response_status IS NULL AND k.reserved_at <= now() - make_interval(secs => ${timing.abandonedAfterSeconds}::float8))
      RETURNING floor(extract(epoch FROM k.expires_at) * 1000000)::text AS generation`.execute(database.db);
    if (reserved.rows.length > 0) return { outcome: "reserved", generation: reserved.rows[0]!.generation };

    const existing = await database
      .tables<ApiTables>()
      .selectFrom("api_idempotency_keys")
      .select(["request_hash", "response_status", "response_body"])
      .where("team_id", "=", scope.teamId)
      .where("method", "=", scope.method)
      .where("path", "=", scope.path)
      .where("key", "=", scope.key)
      .executeTakeFirst();
    if (!existing) continue;
    if (existing.request_hash !== requestHash) return { outcome: "mismatch" };
    if (existing.response_status === null) return { outcome: "in_flight" };
    return { outcome: "replay", status: existing.response_status, body: existing.response_body ?? "" };
  }
}

/** Stores the answer to replay. Only the request that reserved the key can answer it. */
export async function completeIdempotencyKey(
  database: Database,
  scope: IdempotencyScope,
  requestId: string,
  status: number,
  body: string,
): Promise<void> {
  await sql`UPDATE api_idempotency_keys SET response_status = ${status}, response_body = ${body} WHERE ${owned(scope, requestId)}`.execute(
    database.db,
  );
}

/**
 * Gives the key up, so that the client can retry with it. Only the request that reserved it can. The key
 * is left as abandoned, not deleted: the retry takes it over at once and in the same generation, because
 * a request refused after it wrote (a commit whose answer the lost connection never brought) must have
 * its retry meet what it wrote, not write it again under new ids.
 */
export async function releaseIdempotencyKey(database: Database, scope: IdempotencyScope, requestId: string): Promise<void> {
  await sql`UPDATE api_idempotency_keys SET reserved_at = '-infinity' WHERE ${owned(scope, requestId)} AND response_status IS NULL`.execute(
    database.db,
  );
}

export async function pruneIdempotencyKeys(database: Database): Promise<number> {
  const result = await sql`DELETE FROM api_idempotency_keys WHERE expires_at <= now()`.execute(database.db);
  return Number(result.numAffectedRows ?? 0n);
}

function owned(scope: IdempotencyScope, requestId: string) {
  return sql`team_id = ${scope.teamId} AND method = ${scope.method} AND path = ${scope.path} AND key = ${scope.key} AND owner_request_id = ${requestId}`;
}
