import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { isErasedText } from "@tidings/privacy";
import { contentPlaceholder } from "./contentPlaceholder.js";
import { mentions, namesSubject, type SubjectMatch } from "./erasedSubject.js";
import { byIdAfter, eachPage, newestFirstAfter, type TeamCursor } from "./pages.js";
import { addCounts, noRows, type Counts, type ScrubTarget } from "./scrubTargets.js";

/** Automation runs and their steps; a run's content is its steps' outputs and errors. */
export const runTables = ["automation_runs", "automation_run_steps"] as const;

interface StepRow {
  run_id: string;
  key: string;
  output: Record<string, unknown> | null;
  error: string | null;
}

// A waiting step's output is written in clear by `AutomationRunStepWaiting` (the event it waits for and
// until when); only a completed step's output is the run's content.
const isWaitingOutput = (output: Record<string, unknown>) => output.waiting_for !== undefined && output.waiting_for !== null;
const contentOutput = sql`s.output IS NOT NULL AND s.output <> '{}'::jsonb AND s.output->'waiting_for' IS NULL`;
const readableStep = sql`((${contentOutput}) OR (s.error IS NOT NULL AND s.error NOT LIKE 'erased:%'))`;

/**
 * The content of these runs goes, in one transaction: a completed step's output reads `{}` (it is sealed
 * whole, an object), an error the run's content placeholder. Statuses and times stay.
 */
async function eraseRuns(database: Database, target: ScrubTarget, runIds: string[]): Promise<Counts> {
  const steps = target.table("automation_run_steps");
  return database.db.transaction().execute(async (trx) => {
    const { rows } = await sql<StepRow>`
      SELECT s.run_id::text AS run_id, s.key, s.output, s.error FROM ${sql.table(steps)} AS s
       WHERE s.run_id = ANY(${runIds}::uuid[]) AND ${readableStep}`.execute(trx);
    const writes = rows.map((step) => ({
      ...step,
      eraseOutput: step.output !== null && Object.keys(step.output).length > 0 && !isWaitingOutput(step.output),
      eraseError: step.error !== null && !isErasedText(step.error),
    }));
    const result = await sql`
      UPDATE ${sql.table(steps)} AS s SET
        output = CASE WHEN v.erase_output THEN '{}'::jsonb ELSE s.output END,
        error = CASE WHEN v.erase_error THEN v.tag ELSE s.error END
      FROM unnest(${writes.map((w) => w.run_id)}::uuid[], ${writes.map((w) => w.key)}::text[], ${writes.map((w) => w.eraseOutput)}::boolean[],
                  ${writes.map((w) => w.eraseError)}::boolean[], ${writes.map((w) => contentPlaceholder("event", w.run_id))}::text[])
        AS v(run_id, key, erase_output, erase_error, tag)
      WHERE s.run_id = v.run_id AND s.key = v.key`.execute(trx);
    return { [steps]: Number(result.numAffectedRows ?? 0) };
  });
}

type RunRow = TeamCursor & { of_contact: boolean };

/**
 * The team's runs whose content is keyed with the subject's key: the erased contact's own runs (their
 * trigger and steps are keyed with `contact:<id>`), and runs a step's output or error names the subject in. A run
 * whose trigger payload alone names the subject is not found: the read model does not keep the payload.
 */
export async function scrubSubjectRuns(database: Database, target: ScrubTarget, subject: SubjectMatch): Promise<Counts> {
  const counts = noRows(target, runTables);
  const steps = sql.table(target.table("automation_run_steps"));
  await eachPage(
    async (after: RunRow | undefined) => {
      const { after: next, page } = newestFirstAfter("r", after);
      const { rows } = await sql<RunRow>`
        SELECT r.id::text AS id, r.created_at::text AS created_at, r.contact_id IS NOT DISTINCT FROM ${subject.contactId}::uuid AS of_contact
          FROM ${sql.table(target.table("automation_runs"))} AS r
         WHERE r.team_id = ${subject.teamId} ${next}
           AND (r.contact_id IS NOT DISTINCT FROM ${subject.contactId}::uuid
                OR EXISTS (SELECT 1 FROM ${steps} AS s
                            WHERE s.run_id = r.id AND ${mentions(subject, sql`coalesce(s.output::text, '') || coalesce(s.error, '')`)}))
         ${page}`.execute(database.db);
      return rows;
    },
    async (rows) => {
      const { rows: named } = await sql<StepRow>`
        SELECT s.run_id::text AS run_id, s.key, s.output, s.error FROM ${steps} AS s
         WHERE s.run_id = ANY(${rows.filter((r) => !r.of_contact).map((r) => r.id)}::uuid[])
           AND strpos(lower(coalesce(s.output::text, '') || coalesce(s.error, '')), ${subject.address}) > 0`.execute(database.db);
      const naming = new Set(named.filter((s) => namesSubject(subject, [s.output, s.error])).map((s) => s.run_id));
      const linked = rows.filter((row) => row.of_contact || naming.has(row.id)).map((row) => row.id);
      if (linked.length > 0) addCounts(counts, await eraseRuns(database, target, linked));
    },
  );
  return counts;
}

/** Retention of custom-event content: the steps' content of runs started before `before`, a page of the whole table at a time. */
export async function expireRuns(database: Database, target: ScrubTarget, before: Date): Promise<Counts> {
  const counts = noRows(target, runTables);
  const steps = sql.table(target.table("automation_run_steps"));
  await eachPage(
    async (after: { id: string; due: boolean } | undefined) => {
      const { after: next, page } = byIdAfter("r", after);
      const { rows } = await sql<{ id: string; due: boolean }>`
        SELECT r.id::text AS id,
               r.created_at < ${before.toISOString()}::timestamptz AND EXISTS (SELECT 1 FROM ${steps} AS s WHERE s.run_id = r.id AND ${readableStep}) AS due
          FROM ${sql.table(target.table("automation_runs"))} AS r WHERE true ${next} ${page}`.execute(database.db);
      return rows;
    },
    async (rows) => {
      const due = rows.filter((row) => row.due).map((row) => row.id);
      if (due.length > 0) addCounts(counts, await eraseRuns(database, target, due));
    },
  );
  return counts;
}
