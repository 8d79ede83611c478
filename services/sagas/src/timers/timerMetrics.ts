import { sql } from "kysely";
import { sharedRead, type Metrics } from "@tidings/core";
import type { Database } from "@tidings/postgres";

/** A timer this far past its time means no sagas process polls, or firing it keeps failing (docs/operations.md). */
export const overdueAfterSeconds = 60;

/**
 * Timers due now and overdue, by what they do (`retry-delivery`, `webhook-delivery`, …), read from
 * `due_timers` on each scrape (docs/operations.md, "Metrics").
 */
export function registerTimerMetrics(database: Database, metrics: Metrics): void {
  if (!metrics.enabled) return;
  const counts = sharedRead(() =>
    sql<{ kind: string; due: string; overdue: string }>`
      SELECT coalesce(payload->>'kind', 'unknown') AS kind, count(*) AS due,
             count(*) FILTER (WHERE due_at < now() - make_interval(secs => ${overdueAfterSeconds})) AS overdue
      FROM due_timers WHERE due_at <= now() GROUP BY 1`.execute(database.db),
  );
  metrics.collected({
    name: "tidings_timers_due",
    help: "Timers whose time has come and that have not fired yet, by kind",
    labels: ["kind"],
    collect: async (gauge) => {
      for (const row of (await counts()).rows) gauge.set({ kind: row.kind }, Number(row.due));
    },
  });
  metrics.collected({
    name: "tidings_timers_overdue",
    help: `Timers more than ${overdueAfterSeconds} s past their time, by kind: no sagas process polls, or firing them fails`,
    labels: ["kind"],
    collect: async (gauge) => {
      for (const row of (await counts()).rows) gauge.set({ kind: row.kind }, Number(row.overdue));
    },
  });
}
