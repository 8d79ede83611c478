import { sql } from "kysely";
import { grouped, rowsByInput } from "@tidings/core";
import type { Database } from "@tidings/postgres";

export interface ParkedRun {
  runId: string;
  automationId: string;
  teamId: string;
  contactId: string;
  stepKey: string;
  /** The custom event a `wait_for_event` step awaits; null on a `delay`. */
  eventName: string | null;
}

/** The parked-runs index (see migrations.ts): where to look, never what to decide on. */
export interface ParkedRuns {
  park(run: ParkedRun): Promise<void>;
  /** Forgets the run's parking on `stepKey`; a parking on a later step stays. */
  release(runId: string, stepKey: string): Promise<void>;
  awaiting(teamId: string, contactId: string, eventName: string): Promise<{ runId: string; stepKey: string }[]>;
  ofAutomation(automationId: string): Promise<string[]>;
}

export function parkedRuns(database: Database): ParkedRuns {
  // Asked for every received event, most often of none: the asks of a burst go as one statement.
  const awaiting = grouped(
    async (asks: { teamId: string; contactId: string; eventName: string }[]) => {
      const { rows } = await sql<{ ord: number; run_id: string; step_key: string }>`
        SELECT (k.ord - 1)::int AS ord, p.run_id::text, p.step_key
        FROM unnest(${asks.map((a) => a.teamId)}::uuid[], ${asks.map((a) => a.contactId)}::uuid[], ${asks.map((a) => a.eventName)}::text[])
          WITH ORDINALITY AS k(team_id, contact_id, event_name, ord)
        JOIN automation_parked_runs p ON p.team_id = k.team_id AND p.contact_id = k.contact_id AND p.event_name = k.event_name`.execute(
        database.db,
      );
      return rowsByInput(
        asks.length,
        rows,
        (row) => row.ord,
        (row) => ({ runId: row.run_id, stepKey: row.step_key }),
      );
    },
    { inFlight: 2, max: 500 },
  );
  return {
    async park(run) {
      await sql`
        INSERT INTO automation_parked_runs (run_id, automation_id, team_id, contact_id, step_key, event_name)
        VALUES (${run.runId}, ${run.automationId}, ${run.teamId}, ${run.contactId}, ${run.stepKey}, ${run.eventName})
        ON CONFLICT (run_id) DO UPDATE SET step_key = EXCLUDED.step_key, event_name = EXCLUDED.event_name`.execute(database.db);
    },
    async release(runId, stepKey) {
      await sql`DELETE FROM automation_parked_runs WHERE run_id = ${runId} AND step_key = ${stepKey}`.execute(database.db);
    },
    awaiting: (teamId, contactId, eventName) => awaiting({ teamId, contactId, eventName }),
    async ofAutomation(automationId) {
      const { rows } = await sql<{
        run_id: string;
      }>`SELECT run_id::text FROM automation_parked_runs WHERE automation_id = ${automationId}`.execute(database.db);
      return rows.map((r) => r.run_id);
    },
  };
}
