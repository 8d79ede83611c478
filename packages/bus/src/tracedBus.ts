import { activeTraceHeaders, inSpan, tracingEnabled } from "@tidings/core";
import type { Bus } from "./port.js";

/**
 * The bus with its hops traced (docs/operations.md, "Traces"): a producer span per publish, whose W3C
 * `traceparent` goes in the message's headers, and a consumer span around each handling, under the
 * publish its headers name. A publish whose headers already carry a trace context (the forwarder's, from
 * the event's metadata) continues that trace. `system` is the adapter: `nats` or `database`. With tracing
 * off it is the bus itself.
 */
export function traceBus(inner: Bus, system: "nats" | "database"): Bus {
  if (!tracingEnabled()) return inner;
  return {
    publish: (subject, data, options) =>
      inSpan(
        `publish ${subject}`,
        "producer",
        {
          "messaging.system": system,
          "messaging.operation.type": "send",
          "messaging.destination.name": subject,
          "messaging.message.id": options.msgId,
        },
        () => inner.publish(subject, data, { ...options, headers: { ...options.headers, ...activeTraceHeaders() } }),
        options.headers,
      ),
    consume: (options, handler) =>
      inner.consume(options, (message) =>
        inSpan(
          `process ${message.subject}`,
          "consumer",
          {
            "messaging.system": system,
            "messaging.operation.type": "process",
            "messaging.destination.name": message.subject,
            "messaging.consumer.group.name": options.durable,
            "messaging.message.id": message.msgId,
            "tidings.message.delivery_count": message.deliveryCount,
          },
          () => handler(message),
          message.headers,
        ),
      ),
    deadLetters: (durable, limit) => inner.deadLetters(durable, limit),
    deadLetter: (durable, id) => inner.deadLetter(durable, id),
    removeDeadLetter: (durable, id) => inner.removeDeadLetter(durable, id),
    pending: (durable) => inner.pending(durable),
    close: () => inner.close(),
  };
}
