import type { Migration } from "@tidings/postgres";

/**
 * Durable timers (component "timers", docs/architecture.md §5). A row is one pending timer, keyed by what it is for
 * (`email-send:<id>`), so scheduling twice keeps one timer. `generation` changes on every reschedule, so
 * a poller that fired an older generation does not delete the newer one. `locked_until` is the lease of
 * the process firing it: a process that dies mid-fire leaves the row to be fired again after the lease.
 */
export const timerMigrations: Migration[] = [
  {
    id: "0001_due_timers",
    sql: `
CREATE TABLE due_timers (
  key text PRIMARY KEY,
  due_at timestamptz NOT NULL,
  payload jsonb NOT NULL,
  generation integer NOT NULL DEFAULT 1,
  locked_until timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX due_timers_due ON due_timers (due_at);
`,
  },
  {
    // Claims of webhook attempts (webhooks/attemptLeases.ts): saga work held by one process at a time,
    // beside the timers that hand it out.
    id: "0002_webhook_attempt_leases",
    sql: `
CREATE TABLE webhook_attempt_leases (
  delivery_id uuid PRIMARY KEY,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL
);
`,
  },
];
