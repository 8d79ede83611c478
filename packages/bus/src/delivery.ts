import type { Logger } from "@tidings/core";
import { eventLoopGaps } from "./eventLoopGaps.js";
import { backoffDelayMs, deadLetterSubject, type BusMessage, type ConsumerOptions, type DeadLetter, type MessageHandler } from "./port.js";

/** One delivery as an adapter sees it: the message plus the adapter's own settlement calls. */
export interface Delivery extends Omit<BusMessage, "nak" | "stopping" | "stillHeld"> {
  nak(delayMs: number): Promise<void>;
}

/** The port's default ack wait. */
export const defaultAckWaitMs = 30_000;

/** Records a message that exhausted its tries on `deadLetterSubject(durable)`; the caller acks it afterwards. */
export type DeadLetterSink = (delivery: Delivery, error: string) => Promise<void>;

/** Headers a dead letter carries besides the original message's own. */
export const deadLetterHeaders = {
  originalSubject: "tidings-original-subject",
  msgId: "tidings-msg-id",
  error: "tidings-error",
  deliveryCount: "tidings-delivery-count",
} as const;

/** A stored dead letter as every adapter reads it back: what `deadLetterOf` wrote, split into the original message and its fate. */
export function storedDeadLetter(stored: { id: string; headers: Record<string, string>; data: unknown; deadAt: Date }): DeadLetter {
  const { headers, id, data, deadAt } = stored;
  const ours = new Set<string>(Object.values(deadLetterHeaders));
  return {
    id,
    subject: headers[deadLetterHeaders.originalSubject] ?? "",
    msgId: headers[deadLetterHeaders.msgId] ?? "",
    data,
    headers: Object.fromEntries(Object.entries(headers).filter(([key]) => !ours.has(key))),
    deliveryCount: Number(headers[deadLetterHeaders.deliveryCount] ?? 0),
    error: headers[deadLetterHeaders.error] ?? "",
    deadAt,
  };
}

/** A message as an adapter writes it out. */
export type OutgoingMessage = Pick<BusMessage, "subject" | "data" | "msgId" | "headers">;

/**
 * The dead letter of `delivery` for `durable`, as every adapter publishes it: on `deadLetterSubject(durable)`,
 * once per durable and message, with the original's headers and what became of it.
 */
export function deadLetterOf(durable: string, delivery: Delivery, error: string): OutgoingMessage {
  return {
    subject: deadLetterSubject(durable),
    data: delivery.data,
    msgId: `${durable}:${delivery.msgId}`,
    headers: {
      ...delivery.headers,
      [deadLetterHeaders.originalSubject]: delivery.subject,
      [deadLetterHeaders.msgId]: delivery.msgId,
      [deadLetterHeaders.error]: error,
      [deadLetterHeaders.deliveryCount]: String(delivery.deliveryCount),
    },
  };
}

/**
 * The port's settlement rules, shared by every adapter: returning acks, throwing naks with backoff, and
 * the last allowed delivery goes to the dead-letter subject instead of being nak'ed.
 *
 * Adapters deliver up to `maxDeliver + 1` times. The extra delivery only happens when the handler of the
 * last allowed one never settled (the process died, or it outran the ack wait); it dead-letters the
 * message without calling the handler, so no message is ever parked silently.
 */
export async function handleDelivery(
  delivery: Delivery,
  handler: MessageHandler,
  options: ConsumerOptions,
  deadLetter: DeadLetterSink,
  logger: Logger,
  stopping: AbortSignal,
  /**
   * No other process consumes this durable (the in-process bus on PGlite): a redelivery can only come back
   * here, where the handler's own guard meets it, so the hold never passes elsewhere and `stillHeld` stays true.
   */
  sole = false,
): Promise<void> {
  const bury = async (error: string) => {
    await deadLetter(delivery, error);
    await delivery.ack();
    logger.warn({ durable: options.durable, subject: delivery.subject, msgId: delivery.msgId, error }, "message dead-lettered");
  };
  if (delivery.deliveryCount > options.maxDeliver) {
    await bury(`not settled within the ack wait on its last allowed delivery (${options.maxDeliver})`);
    return;
  }
  const isLast = delivery.deliveryCount >= options.maxDeliver;
  eventLoopGaps.watch();
  const receivedAt = performance.now();
  const ackWaitMs = options.ackWaitMs ?? defaultAckWaitMs;
  // Heartbeats go every third of the ack wait: the bus sees none for the whole wait only after the
  // process stood still for two thirds of it. Half leaves a margin for the heartbeat's own way there.
  const stillHeld = () =>
    sole ||
    ((options.heartbeat === true || performance.now() - receivedAt < ackWaitMs / 2) &&
      !eventLoopGaps.stoodStillSince(receivedAt - ackWaitMs, ackWaitMs / 2));
  let settled = false;
  const settleOnce = async (settle: () => Promise<void>) => {
    if (settled) return;
    settled = true;
    await settle();
  };
  const message: BusMessage = {
    subject: delivery.subject,
    data: delivery.data,
    msgId: delivery.msgId,
    headers: delivery.headers,
    deliveryCount: delivery.deliveryCount,
    ack: () => settleOnce(() => delivery.ack()),
    nak: (delayMs = 0) => settleOnce(() => (isLast ? bury("nak'ed on its last allowed delivery") : delivery.nak(delayMs))),
    working: async () => {
      if (!settled) await delivery.working();
    },
    stopping,
    stillHeld,
  };
  const heartbeat = options.heartbeat ? setInterval(() => void message.working().catch(() => {}), ackWaitMs / 3) : undefined;
  try {
    await handler(message);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (settled) {
      logger.error({ durable: options.durable, msgId: delivery.msgId, err: error }, "handler threw after settling its message");
      return;
    }
    settled = true;
    // Left for the next consumer, as a crash would leave it but without the ack wait: the delivery counts,
    // and only the adapters' extra delivery (see above) buries one stopped on its last allowed delivery.
    if (stopping.aborted) await delivery.nak(0);
    else if (isLast) await bury(reason);
    else await delivery.nak((options.backoffMs ?? backoffDelayMs)(delivery.deliveryCount));
    return;
  } finally {
    clearInterval(heartbeat);
  }
  await settleOnce(() => delivery.ack());
}
