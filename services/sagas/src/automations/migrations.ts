import type { Migration } from "@tidings/postgres";

/**
 * Runs parked on a `delay` or a `wait_for_event` step (component "automations"). The runner writes a row
 * when it parks a run and deletes it when the run moves on, so an arriving event finds the runs awaiting it
 * (`by_event`) and a disabled automation finds its runs to cancel (`by_automation`) without waiting on a
 * read model. The run's stream stays the truth: a row is only where to look.
 */
export const automationMigrations: Migration[] = [
  {
    id: "0001_parked_runs",
    sql: `
CREATE TABLE automation_parked_runs (
  run_id uuid PRIMARY KEY,
  automation_id uuid NOT NULL,
  team_id uuid NOT NULL,
  contact_id uuid NOT NULL,
  step_key text NOT NULL,
  event_name text,
  parked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX automation_parked_runs_by_event ON automation_parked_runs (team_id, contact_id, event_name) WHERE event_name IS NOT NULL;
CREATE INDEX automation_parked_runs_by_automation ON automation_parked_runs (automation_id);
`,
  },
];
