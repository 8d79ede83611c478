import type { EmailContent, EmailEvent, InboundEmailEvent } from "@tidings/domain";
import type { BatchContext, ColumnDefinition, Projection, Row } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { quarterHour } from "./quarterHour.js";

/** The domain of an email sent from none, or the broadcast of an email of none: key columns cannot be NULL. */
export const NO_DIMENSION = "00000000-0000-0000-0000-000000000000";

/** Counted per event: an email may be delayed, opened and clicked many times. */
const everyTime = ["received", "delivery_delayed", "opened", "clicked"] as const;
/** Counted for an email's first such event only: a second EmailDelivered (recipients settling later) adds nothing. */
const firstTime = [
  "sent",
  "delivered",
  "complained",
  "bounced_permanent",
  "bounced_transient",
  "bounced_undetermined",
  "failed",
  "suppressed",
  "unique_opened",
  "unique_clicked",
] as const;
export type EmailMetricCounter = (typeof everyTime)[number] | (typeof firstTime)[number];
export const emailMetricCounters: readonly EmailMetricCounter[] = [...everyTime, ...firstTime];
type FirstTime = (typeof firstTime)[number];

const counterColumns = Object.fromEntries(emailMetricCounters.map((c) => [c, { type: "bigint", merge: "add" }])) as Record<
  EmailMetricCounter,
  { type: "bigint"; merge: "add" }
>;

/** Each tallied table claims an email's first event apart: one claim can mark one tally. */
const tallied = { email_metrics: "counted", email_metrics_by_email: "counted_by_email" } as const;
type Tallied = keyof typeof tallied;
const claim = (table: Tallied, counter: FirstTime) => `${counter}_${tallied[table]}`;
const claimColumns = Object.fromEntries(
  (Object.keys(tallied) as Tallied[]).flatMap((table) => firstTime.map((c) => [claim(table, c), { type: "boolean", nullable: true }])),
) as Record<string, ColumnDefinition>;

/** The email's keys in each tallied table, read from its `email_metric_emails` row. */
const keysRead: Record<Tallied, Record<string, string>> = {
  email_metrics: { team_id: "team_id", domain_id: "domain_id", broadcast_id: "broadcast_id" },
  email_metrics_by_email: { team_id: "team_id", email_id: "id", domain_id: "domain_id", broadcast_id: "broadcast_id" },
};

/** Adds one to `counter` in the quarter hour of `at`, in both tables, for the email's first such event if `counter` says so. */
function count(context: BatchContext, emailId: string, counter: EmailMetricCounter, at: string) {
  const row: Row = { bucket_start: quarterHour(at), [counter]: 1 };
  for (const table of Object.keys(tallied) as Tallied[]) {
    const once = (firstTime as readonly string[]).includes(counter)
      ? { column: claim(table, counter as FirstTime), value: true }
      : undefined;
    context.tally(table, { table: "email_metric_emails", key: { id: emailId }, columns: keysRead[table], ...(once && { once }) }, row);
  }
}

/** An email's first event: what its later events are counted under. */
function remember(data: EmailContent, context: BatchContext) {
  context.upsert("email_metric_emails", {
    id: data.emailId,
    team_id: data.teamId,
    domain_id: data.domainId ?? NO_DIMENSION,
    broadcast_id: data.broadcastId ?? NO_DIMENSION,
  });
}

const dimensions = {
  domain_id: { type: "uuid" },
  broadcast_id: { type: "uuid" },
} as const;

/**
 * The counters behind `GET /emails/metrics`, per team, quarter hour (UTC), sending domain and broadcast, so
 * that a range of any length in any timezone sums a few thousand rows at most, and per email too for the
 * `email` dimension and filter. An email's later events name only the email: `email_metric_emails` keeps its
 * team, domain and broadcast, and which of its first-time events each table has counted (BatchContext.tally).
 */
export const emailMetricsProjection = {
  name: "email_metrics",
  version: 1,
  tables: {
    email_metric_emails: {
      columns: { id: { type: "uuid" }, team_id: { type: "uuid" }, ...dimensions, ...claimColumns },
      primaryKey: ["id"],
    },
    email_metrics: {
      columns: { team_id: { type: "uuid" }, bucket_start: { type: "timestamptz" }, ...dimensions, ...counterColumns },
      primaryKey: ["team_id", "bucket_start", "domain_id", "broadcast_id"],
    },
    email_metrics_by_email: {
      columns: {
        team_id: { type: "uuid" },
        email_id: { type: "uuid" },
        bucket_start: { type: "timestamptz" },
        ...dimensions,
        ...counterColumns,
      },
      // The domain and broadcast follow from the email; they are in the key so that a tally may read them.
      primaryKey: ["team_id", "email_id", "bucket_start", "domain_id", "broadcast_id"],
      indexes: { by_team: "(team_id, bucket_start)" },
    },
  },
  handlers: handlersOf<EmailEvent | InboundEmailEvent>({
    EmailQueued: remember,
    EmailScheduled: remember,
    EmailSent: (data, context) => count(context, data.emailId, "sent", data.sentAt),
    EmailDelivered: (data, context) => count(context, data.emailId, "delivered", data.deliveredAt),
    EmailDeliveryDelayed: (data, context) => count(context, data.emailId, "delivery_delayed", data.delayedAt),
    EmailBounced: (data, context) => count(context, data.emailId, `bounced_${data.bounce.type}`, data.bouncedAt),
    EmailFailed: (data, context) => count(context, data.emailId, "failed", data.failedAt),
    EmailSuppressed: (data, context) => count(context, data.emailId, "suppressed", data.suppressedAt),
    EmailComplained: (data, context) => count(context, data.emailId, "complained", data.complainedAt),
    EmailOpened(data, context) {
      count(context, data.emailId, "opened", data.openedAt);
      count(context, data.emailId, "unique_opened", data.openedAt);
    },
    EmailClicked(data, context) {
      count(context, data.emailId, "clicked", data.clickedAt);
      count(context, data.emailId, "unique_clicked", data.clickedAt);
    },
    // Received mail has no sending domain or broadcast: it counts under neither.
    InboundEmailReceived(data, context) {
      const zeros = Object.fromEntries(emailMetricCounters.map((c) => [c, 0]));
      context.upsert("email_metrics", {
        team_id: data.teamId,
        bucket_start: quarterHour(data.receivedAt),
        domain_id: NO_DIMENSION,
        broadcast_id: NO_DIMENSION,
        ...zeros,
        received: 1,
      });
    },
  }),
} satisfies Projection;
