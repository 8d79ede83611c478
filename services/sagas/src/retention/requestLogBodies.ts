import { sql } from "kysely";
import type { Database } from "@tidings/postgres";

/** Rows changed per statement, so that a large backlog never holds long locks. */
const chunk = 5000;

/**
 * Removes the bodies of the requests logged before `before` (RETENTION_REQUEST_LOG_BODIES): what was sent
 * and answered goes, the row (method, path, status, time) stays until LOG_RETENTION_DAYS prunes it.
 * Resolves with how many rows lost their bodies.
 */
export async function expireRequestLogBodies(database: Database, before: Date): Promise<number> {
  // The api's migrations make the table; a sagas process may run against a database no api has opened yet.
  const { rows } = await sql<{ present: boolean }>`SELECT to_regclass('api_request_logs') IS NOT NULL AS present`.execute(database.db);
  if (!rows[0]?.present) return 0;
  let total = 0;
  for (;;) {
    const result = await sql`
      UPDATE api_request_logs SET request_body = NULL, response_body = NULL WHERE id IN (
        SELECT id FROM api_request_logs
         WHERE created_at < ${before.toISOString()}::timestamptz AND (request_body IS NOT NULL OR response_body IS NOT NULL)
         LIMIT ${chunk}
      )`.execute(database.db);
    const changed = Number(result.numAffectedRows ?? 0);
    total += changed;
    if (changed < chunk) return total;
  }
}
