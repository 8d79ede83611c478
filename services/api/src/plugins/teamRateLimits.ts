import { DEFAULT_RATE_LIMIT } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { readModels } from "@tidings/projections";

export interface TeamRateLimitsOptions {
  /** How long a team's limit is used before it is read again; a changed limit applies within this. */
  refreshAfterMs?: number;
  now?: () => number;
}

/**
 * Each team's requests per second, from the teams read model (`tidings teams set-rate-limit`). Read once,
 * then served from memory: past `refreshAfterMs` the cached limit still answers while a fresh read runs
 * in the background, so only a team's first request ever waits for the database.
 */
export function teamRateLimits(database: Database, options: TeamRateLimitsOptions = {}): (teamId: string) => number | Promise<number> {
  const refreshAfterMs = options.refreshAfterMs ?? 1000;
  const now = options.now ?? (() => performance.now());
  const cache = new Map<string, { limit: number; readAt: number; reading?: Promise<number> }>();

  const read = (teamId: string): Promise<number> => {
    const entry = cache.get(teamId);
    if (entry?.reading) return entry.reading;
    const reading = readModels(database)
      .selectFrom("teams")
      .select("rate_limit_per_second")
      .where("id", "=", teamId)
      .executeTakeFirst()
      .then((row) => {
        const limit = Number(row?.rate_limit_per_second ?? DEFAULT_RATE_LIMIT);
        cache.set(teamId, { limit, readAt: now() });
        return limit;
      })
      .finally(() => {
        const current = cache.get(teamId);
        if (current?.reading === reading) delete current.reading;
      });
    if (entry) entry.reading = reading;
    else cache.set(teamId, { limit: Number.NaN, readAt: Number.NEGATIVE_INFINITY, reading });
    return reading;
  };

  return (teamId) => {
    const entry = cache.get(teamId);
    if (!entry || Number.isNaN(entry.limit)) return read(teamId);
    if (now() - entry.readAt > refreshAfterMs && !entry.reading) {
      read(teamId).catch(() => {});
    }
    return entry.limit;
  };
}
