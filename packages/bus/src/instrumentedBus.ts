import type { Metrics } from "@tidings/core";
import type { Bus } from "./port.js";

/** Stored dead letters are counted up to this many per consumer on a scrape: each is a read on NATS. */
export const deadLettersCounted = 100;

/**
 * The bus with its consumers measured (docs/operations.md, "Metrics"): messages handled by outcome and
 * redeliveries, per durable consumer; and, read on each scrape for `durables`, each one's pending messages
 * and stored dead letters. With metrics off it is the bus itself.
 */
export function instrumentBus(inner: Bus, metrics: Metrics, durables: readonly string[]): Bus {
  if (!metrics.enabled) return inner;
  const handled = metrics.counter({
    name: "tidings_saga_messages_total",
    help: "Bus messages a saga's handler finished, by consumer and outcome (ok, failed: delivered again later or dead-lettered)",
    labels: ["consumer", "outcome"],
  });
  const redeliveries = metrics.counter({
    name: "tidings_saga_redeliveries_total",
    help: "Deliveries of a message that had been delivered before (a failed handler, an ack wait run out), by consumer",
    labels: ["consumer"],
  });
  metrics.collected({
    name: "tidings_saga_pending_messages",
    help: "Messages a saga's durable consumer has not acked yet, delivered or waiting",
    labels: ["consumer"],
    collect: async (gauge) => {
      const counts = await Promise.all(durables.map((durable) => inner.pending(durable)));
      durables.forEach((consumer, i) => gauge.set({ consumer }, counts[i]!));
    },
  });
  metrics.collected({
    name: "tidings_saga_dead_letters",
    help: `Messages that exhausted their deliveries and wait for a person (tidings status), by consumer, counted up to ${deadLettersCounted}`,
    labels: ["consumer"],
    collect: async (gauge) => {
      const letters = await Promise.all(durables.map((durable) => inner.deadLetters(durable, deadLettersCounted)));
      durables.forEach((consumer, i) => gauge.set({ consumer }, letters[i]!.length));
    },
  });
  return {
    publish: (subject, data, options) => inner.publish(subject, data, options),
    consume: (options, handler) =>
      inner.consume(options, async (message) => {
        const consumer = options.durable;
        if (message.deliveryCount > 1) redeliveries.inc({ consumer });
        try {
          await handler(message);
          handled.inc({ consumer, outcome: "ok" });
        } catch (error) {
          handled.inc({ consumer, outcome: "failed" });
          throw error;
        }
      }),
    deadLetters: (durable, limit) => inner.deadLetters(durable, limit),
    deadLetter: (durable, id) => inner.deadLetter(durable, id),
    removeDeadLetter: (durable, id) => inner.removeDeadLetter(durable, id),
    pending: (durable) => inner.pending(durable),
    close: () => inner.close(),
  };
}
