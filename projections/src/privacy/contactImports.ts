import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { namesSubject, type SubjectMatch } from "./erasedSubject.js";
import { byIdAfter, eachPage } from "./pages.js";
import { addCounts, noRows, type Counts, type ScrubTarget } from "./scrubTargets.js";

export const importTables = ["contact_import_errors"] as const;

/**
 * An import's row errors are its content: every `ContactImportProgressed` of the import seals its errors,
 * a list, keyed with every address written in them, which opens to `[]` once shredded. The scrub takes
 * every error row of an import that names the subject, more than a rebuild would (it would show the
 * batches that do not name them); the import's counts and status stay.
 */
async function eraseImportErrors(database: Database, target: ScrubTarget, importIds: string[]): Promise<Counts> {
  const errors = target.table("contact_import_errors");
  const result = await sql`DELETE FROM ${sql.table(errors)} WHERE import_id = ANY(${importIds}::uuid[])`.execute(database.db);
  return { [errors]: Number(result.numAffectedRows ?? 0) };
}

/** The team's imports with a row error naming the subject: that batch's errors are keyed with its key (`addressesIn`). */
export async function scrubSubjectImports(database: Database, target: ScrubTarget, subject: SubjectMatch): Promise<Counts> {
  const { rows } = await sql<{ import_id: string; reason: string }>`
    SELECT e.import_id::text AS import_id, e.reason FROM ${sql.table(target.table("contact_import_errors"))} AS e
     WHERE e.import_id IN (SELECT id FROM ${sql.table(target.table("contact_imports"))} WHERE team_id = ${subject.teamId})
       AND strpos(lower(e.reason), ${subject.address}) > 0`.execute(database.db);
  const linked = [...new Set(rows.filter((row) => namesSubject(subject, row.reason)).map((row) => row.import_id))];
  return linked.length > 0 ? eraseImportErrors(database, target, linked) : noRows(target, importTables);
}

/** Retention: the row errors of imports queued before `before`, a page of the imports at a time. */
export async function expireImports(database: Database, target: ScrubTarget, before: Date): Promise<Counts> {
  const counts = noRows(target, importTables);
  const errors = sql.table(target.table("contact_import_errors"));
  await eachPage(
    async (after: { id: string; due: boolean } | undefined) => {
      const { after: next, page } = byIdAfter("r", after);
      const { rows } = await sql<{ id: string; due: boolean }>`
        SELECT r.id::text AS id,
               r.created_at < ${before.toISOString()}::timestamptz AND EXISTS (SELECT 1 FROM ${errors} AS e WHERE e.import_id = r.id) AS due
          FROM ${sql.table(target.table("contact_imports"))} AS r WHERE true ${next} ${page}`.execute(database.db);
      return rows;
    },
    async (rows) => {
      const due = rows.filter((row) => row.due).map((row) => row.id);
      if (due.length > 0) addCounts(counts, await eraseImportErrors(database, target, due));
    },
  );
  return counts;
}
