import { sql } from "kysely";
import type { Database } from "@tidings/postgres";

/** What a bucket says about one request: whether it may go on, and the tokens left after it. */
export interface RateDecision {
  allowed: boolean;
  /** Fractional: the bucket refills continuously. */
  tokens: number;
}

/**
 * A token bucket per team, holding at most `limit` tokens and refilled at `limit` tokens a second: a team
 * may burst up to its per-second limit, then goes at that rate. A request takes one token or is refused;
 * a refused request takes nothing.
 */
export interface RateBuckets {
  take(teamId: string, limit: number): RateDecision | Promise<RateDecision>;
}

/** Embedded mode: one process serves the API, so the buckets can live in its memory. */
export function memoryRateBuckets(now: () => number = () => performance.now()): { take(teamId: string, limit: number): RateDecision } {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(teamId, limit) {
      const at = now();
      const bucket = buckets.get(teamId);
      const level = bucket ? Math.min(limit, bucket.tokens + (Math.max(0, at - bucket.at) / 1000) * limit) : limit;
      const allowed = level >= 1;
      const tokens = allowed ? level - 1 : level;
      buckets.set(teamId, { tokens, at });
      return { allowed, tokens };
    },
  };
}

/**
 * Server mode: the bucket must hold across api instances, so it is a row, refilled and taken from in one
 * atomic upsert per request (one round trip; concurrent requests of one team queue on its row lock).
 * Time is the database's, so instances with skewed clocks agree. The elapsed time is clamped at zero:
 * a statement that started before the one it waited on would otherwise see time run backwards.
 */
export function databaseRateBuckets(database: Database): RateBuckets {
  return {
    async take(teamId, limit) {
      const level = sql`least(${limit}::float8, b.tokens + greatest(0, extract(epoch from now() - b.refilled_at)::float8) * ${limit}::float8)`;
      const result = await sql<{ tokens: number; allowed: boolean }>`
        INSERT INTO api_rate_buckets AS b (team_id, tokens, refilled_at, allowed)
        VALUES (${teamId}, ${limit}::float8 - 1, now(), true)
        ON CONFLICT (team_id) DO UPDATE SET
          tokens = CASE WHEN ${level} >= 1 THEN ${level} - 1 ELSE ${level} END,
          allowed = ${level} >= 1,
          refilled_at = greatest(b.refilled_at, now())
        RETURNING tokens, allowed`.execute(database.db);
      const row = result.rows[0]!;
      return { allowed: row.allowed, tokens: Number(row.tokens) };
    },
  };
}
