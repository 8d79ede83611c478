import { sql } from "kysely";
import type { Database } from "@tidings/postgres";

/** Rows deleted per statement, so that pruning a large backlog never holds long locks. */
const pruneChunk = 5000;

/**
 * Deletes the request logs older than `retentionDays` (LOG_RETENTION_DAYS), measured against the
 * database's clock. Returns how many were deleted.
 */
export async function pruneRequestLogs(database: Database, retentionDays: number): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await sql`
      DELETE FROM api_request_logs WHERE id IN (
        SELECT id FROM api_request_logs WHERE created_at < now() - make_interval(days => ${retentionDays}::int) LIMIT ${pruneChunk}
      )`.execute(database.db);
    const deleted = Number(result.numAffectedRows ?? 0n);
    total += deleted;
    if (deleted < pruneChunk) return total;
  }
}
