import { sql } from "kysely";
import { sharedRead, type Metrics } from "@tidings/core";
import type { Database } from "@tidings/postgres";
import { readModels } from "./readModels.js";

/** What the gauge counts, each a first-time counter of the email metrics read model (bounces: the permanent ones). */
const outcomes = {
  sent: "sent",
  delivered: "delivered",
  bounced: "bounced_permanent",
  complained: "complained",
  failed: "failed",
} as const;

/**
 * Emails of the last hour by outcome, across teams, read on each scrape from the email metrics read model
 * (docs/operations.md, "Metrics"): what the bounce- and complaint-rate alerts divide. It counts what the
 * events say, so bounces reported later by the receiver (DSNs) and complaints from feedback loops count too,
 * which the delivery counter, seeing only what the relay answered, cannot. The sum goes team by team through
 * the table's key, as no index leads with the time.
 */
export function registerEmailOutcomeMetrics(options: { database: Database; metrics: Metrics }): void {
  const { database, metrics } = options;
  if (!metrics.enabled) return;
  const read = sharedRead(async () => {
    const sums = Object.entries(outcomes).map(
      ([name, column]) => sql`COALESCE(SUM(${sql.ref(`m.${column}`)}), 0)::bigint AS ${sql.ref(name)}`,
    );
    const { rows } = await sql<Record<keyof typeof outcomes, string>>`
      SELECT ${sql.join(sums)}
      FROM teams AS t
      JOIN email_metrics AS m ON m.team_id = t.id AND m.bucket_start >= now() - interval '1 hour'`.execute(readModels(database));
    return rows[0];
  }, 5_000);
  metrics.collected({
    name: "tidings_emails_last_hour",
    help: "Emails whose outcome came in the last hour (by quarter hour), by outcome (sent, delivered, bounced: permanent bounces, complained, failed), across teams",
    labels: ["outcome"],
    collect: async (gauge) => {
      const row = await read();
      for (const outcome of Object.keys(outcomes) as (keyof typeof outcomes)[]) gauge.set({ outcome }, Number(row?.[outcome] ?? 0));
    },
  });
}
