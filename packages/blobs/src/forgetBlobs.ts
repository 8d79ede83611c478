import { sql } from "kysely";
import type { Database } from "@tidings/postgres";

/**
 * Deletes blobs whose content was erased or expired (docs/privacy.md): an erased recipient's attachments,
 * an erased sender's raw message. Blobs are stored by content, so bytes identical to another email's
 * attachment go with them: erasure errs on the side of forgetting. Resolves with how many were deleted.
 */
export async function forgetBlobs(database: Database, sha256s: readonly string[]): Promise<number> {
  if (sha256s.length === 0) return 0;
  // The table is made on a store's first use; an installation that never stored a blob has none to forget.
  const { rows } = await sql<{ present: boolean }>`SELECT to_regclass('blobs') IS NOT NULL AS present`.execute(database.db);
  if (!rows[0]?.present) return 0;
  const result = await sql`DELETE FROM blobs WHERE sha256 = ANY(${[...new Set(sha256s)]}::text[])`.execute(database.db);
  return Number(result.numAffectedRows ?? 0);
}
