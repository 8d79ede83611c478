import { consumeEvents, type Bus, type ConsumedEvent, type Consumer } from "@tidings/bus";
import type { EventTypeOf, StreamCategory } from "@tidings/domain";

/**
 * How a saga consumes messages whose work may run long (a send, a fan-out, an import, a run's steps): the
 * ack wait is short, so a message whose process died is redelivered within seconds, and a heartbeat keeps
 * extending it while the work goes on. Redelivered ten times at the most, then dead-lettered.
 */
export const heldMessages = { maxDeliver: 10, ackWaitMs: 5_000, heartbeat: true } as const;

/**
 * A saga whose every event of one type starts a long piece of work (a broadcast's fan-out, a contact
 * import), two at a time, each message held while it runs. The work resumes from its own stream when a
 * crash redelivers the message; `stopping` aborts when the consumer stops.
 */
export function consumeLongWork<Category extends StreamCategory, Type extends EventTypeOf<Category>>(
  bus: Bus,
  events: { durable: string; category: Category; type: Type },
  work: (event: ConsumedEvent<Category, Type>, stopping: AbortSignal) => Promise<void>,
): Promise<Consumer> {
  return consumeEvents(bus, { ...events, ...heldMessages, concurrency: 2 }, (event, message) => work(event, message.stopping));
}
