import type { EmailMetricCounter } from "@tidings/projections";

/** The metric names of `GET /emails/metrics`, in the contract's order (resend-openapi 1.5.0). */
export const emailMetrics = [
  "received",
  "delivered",
  "complained",
  "suppressed",
  "bounced",
  "bounced_transient",
  "bounced_permanent",
  "bounced_undetermined",
  "opened",
  "clicked",
  "unsubscribed",
  "delivery_delayed",
  "failed",
  "sent",
  "unique_opened",
  "unique_clicked",
  "delivery_rate",
  "open_rate",
  "click_rate",
  "bounce_rate",
  "complaint_rate",
  "unsubscribe_rate",
] as const;
export type EmailMetric = (typeof emailMetrics)[number];

/** The read model's counters, summed over a row of the answer. */
export type Counts = Record<EmailMetricCounter, number>;

/** A rate: its numerator and the count it is a share of (docs/wire-compatibility.md §6.22). */
const rates = {
  delivery_rate: ["delivered", "sent"],
  bounce_rate: ["bounced", "sent"],
  open_rate: ["unique_opened", "delivered"],
  click_rate: ["unique_clicked", "delivered"],
  complaint_rate: ["complained", "delivered"],
  unsubscribe_rate: ["unsubscribed", "delivered"],
} as const satisfies Partial<Record<EmailMetric, [EmailMetric, EmailMetric]>>;

/** Every metric that is a count, from the counters: `bounced` is the three kinds together. */
function countsOf(counts: Counts): Record<Exclude<EmailMetric, keyof typeof rates>, number> {
  return {
    ...counts,
    bounced: counts.bounced_permanent + counts.bounced_transient + counts.bounced_undetermined,
    // Tidings records an unsubscribe on the contact, not on the email that led to it.
    unsubscribed: 0,
  };
}

/**
 * The requested metrics of one row from its counts. A rate is a share between 0 and 1, rounded to 4
 * decimals, and 0 when there is nothing to share (no email sent or delivered).
 */
export function metricValues(counts: Counts, metrics: readonly EmailMetric[]): Partial<Record<EmailMetric, number>> {
  const all = countsOf(counts);
  const out: Partial<Record<EmailMetric, number>> = {};
  for (const metric of metrics) {
    if (metric in rates) {
      const [part, whole] = rates[metric as keyof typeof rates];
      const of = all[whole as keyof typeof all];
      out[metric] = of === 0 ? 0 : Math.round((all[part as keyof typeof all] / of) * 10_000) / 10_000;
    } else out[metric] = all[metric as keyof typeof all];
  }
  return out;
}
