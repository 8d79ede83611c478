import { sql, type RawBuilder } from "kysely";
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
 * Server mode: the bucket must hold across api instances, so it is a row, refilled and taken from
 * atomically by one upsert. Time is the database's, so instances with skewed clocks agree; the elapsed
 * time is clamped at zero, since a statement that started before the one it waited on would otherwise
 * see time run backwards.
 *
 * A team's concurrent requests would all queue on its row lock, one round trip each. Instead each
 * instance keeps at most one statement in flight per team: requests arriving meanwhile wait for it, then
 * the next statement takes tokens for all of them at once, and the first `granted` go on. Every token
 * still comes from the shared row and only for a request that asked, so the limit stays exact across
 * instances; at low concurrency this is one upsert per request, under load far fewer.
 */
export function databaseRateBuckets(database: Database): RateBuckets {
  const queues = new Map<string, Waiting[]>();

  const takeMany = async (teamId: string, limit: number, wanted: number) => {
    const level = sql`least(${limit}::float8, b.tokens + greatest(0, extract(epoch from now() - b.refilled_at)::float8) * ${limit}::float8)`;
    const grant = (available: RawBuilder<unknown>) => sql`least(${wanted}::int, floor(${available})::int)`;
    const result = await sql<{ tokens: number; granted: number }>`
      INSERT INTO api_rate_buckets AS b (team_id, tokens, refilled_at, granted)
      VALUES (${teamId}, ${limit}::float8 - ${grant(sql`${limit}::float8`)}, now(), ${grant(sql`${limit}::float8`)})
      ON CONFLICT (team_id) DO UPDATE SET
        tokens = ${level} - ${grant(level)},
        granted = ${grant(level)},
        refilled_at = greatest(b.refilled_at, now())
      RETURNING tokens, granted`.execute(database.db);
    const row = result.rows[0]!;
    return { tokens: Number(row.tokens), granted: Number(row.granted) };
  };

  const drain = async (teamId: string, queue: Waiting[]) => {
    while (queue.length > 0) {
      const batch = queue.splice(0);
      try {
        const { tokens, granted } = await takeMany(teamId, batch[batch.length - 1]!.limit, batch.length);
        batch.forEach((waiting, i) =>
          waiting.resolve(i < granted ? { allowed: true, tokens: tokens + (granted - 1 - i) } : { allowed: false, tokens }),
        );
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    queues.delete(teamId);
  };

  return {
    take(teamId, limit) {
      return new Promise<RateDecision>((resolve, reject) => {
        const queue = queues.get(teamId);
        if (queue) return void queue.push({ limit, resolve, reject });
        const fresh: Waiting[] = [{ limit, resolve, reject }];
        queues.set(teamId, fresh);
        void drain(teamId, fresh);
      });
    },
  };
}

interface Waiting {
  limit: number;
  resolve(decision: RateDecision): void;
  reject(error: unknown): void;
}

const shared = new WeakMap<Database, RateBuckets>();

/**
 * The buckets of `database`'s teams, one set per process: the API and SMTP submission take from the same
 * bucket, so a team's limit covers both. In PostgreSQL when the api may run as several instances (server
 * mode), in memory when PGlite makes it one process.
 */
export function rateBucketsFor(database: Database): RateBuckets {
  let buckets = shared.get(database);
  if (!buckets) {
    buckets = database.kind === "postgres" ? databaseRateBuckets(database) : memoryRateBuckets();
    shared.set(database, buckets);
  }
  return buckets;
}
