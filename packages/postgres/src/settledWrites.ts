import { sql } from "kysely";
import type { Database } from "./database.js";

/**
 * Resolves once every transaction committed before the call is below the cluster's xmin horizon, which
 * is when `$all` in the PostgreSQL event store shows its events (docs/architecture.md §4). A write in flight in another
 * database of the cluster can hold the horizon back for a moment, so a test that reads `$all` for exact
 * contents right after appending waits here first.
 */
export async function settledWrites(database: Database, timeoutMs = 10_000): Promise<void> {
  // An autocommit statement that takes a transaction id: committed, and later than every earlier commit.
  const { rows } = await sql<{ xid: string }>`SELECT pg_current_xact_id()::text AS xid`.execute(database.db);
  const xid = rows[0]!.xid;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows: horizon } = await sql<{
      passed: boolean;
    }>`SELECT pg_snapshot_xmin(pg_current_snapshot()) > ${xid}::xid8 AS passed`.execute(database.db);
    if (horizon[0]!.passed) return;
    if (Date.now() > deadline)
      throw new Error(`the xmin horizon did not pass transaction ${xid} within ${timeoutMs} ms: a transaction in the cluster stays open`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
