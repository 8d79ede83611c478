import { sql } from "kysely";
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
    async awaiting(teamId, contactId, eventName) {
      const { rows } = await sql<{ run_id: string; step_key: string }>`
        SELECT run_id::text, step_key FROM automation_parked_runs
        WHERE team_id = ${teamId} AND contact_id = ${contactId} AND event_name = ${eventName}`.execute(database.db);
      return rows.map((r) => ({ runId: r.run_id, stepKey: r.step_key }));
    },
    async ofAutomation(automationId) {
      const { rows } = await sql<{ run_id: string }>`SELECT run_id::text FROM automation_parked_runs WHERE automation_id = ${automationId}`.execute(database.db);
      return rows.map((r) => r.run_id);
    },
  };
}
