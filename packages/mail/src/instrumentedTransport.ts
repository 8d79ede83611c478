import { secondsSince, type Metrics } from "@tidings/core";
import type { DeliveryKind, MailTransport } from "./port.js";

/**
 * The mail transport with its sends measured (docs/operations.md, "Metrics"): each recipient's outcome,
 * the send's latency, and the connections in use, every send holding one of MAIL_CONCURRENCY while it
 * runs. `transport` is MAIL_TRANSPORT's value. With metrics off it is the transport itself.
 */
export function instrumentMailTransport(inner: MailTransport, metrics: Metrics, transport: string, connections: number): MailTransport {
  if (!metrics.enabled) return inner;
  const outcomes = metrics.counter({
    name: "tidings_deliveries_total",
    help: "Recipients of delivery attempts, by outcome (delivered, bounced, deferred, failed) and transport",
    labels: ["outcome", "transport"],
  });
  const latency = metrics.histogram({
    name: "tidings_delivery_send_seconds",
    help: "Time one send took, from connecting to the relay's or MX's last reply, by transport",
    labels: ["transport"],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  });
  const inUse = metrics.gauge({
    name: "tidings_smtp_connections_in_use",
    help: "Sends under way, each holding one SMTP connection (a file write with the outbox), by transport",
    labels: ["transport"],
  });
  metrics
    .gauge({
      name: "tidings_smtp_connections_max",
      help: "MAIL_CONCURRENCY: the connections sends may hold at once",
      labels: ["transport"],
    })
    .set({ transport }, connections);
  const count = (outcome: DeliveryKind, by: number) => outcomes.inc({ outcome, transport }, by);
  return {
    async send(mail) {
      const startedAt = performance.now();
      inUse.inc({ transport });
      try {
        const outcome = await inner.send(mail);
        latency.observe({ transport }, secondsSince(startedAt));
        if (outcome.perRecipient) for (const r of outcome.perRecipient) count(r.kind, 1);
        else count(outcome.kind, mail.envelope.to.length);
        return outcome;
      } finally {
        inUse.dec({ transport });
      }
    },
    close: () => inner.close(),
  };
}
