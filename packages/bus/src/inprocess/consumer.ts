import { setMaxListeners } from "node:events";
import type { Logger } from "@tidings/core";
import type { Kysely } from "kysely";
import { defaultAckWaitMs, handleDelivery, type DeadLetterSink, type Delivery } from "../delivery.js";
import { interruptibleWait } from "../interruptibleWait.js";
import type { ConsumerOptions, MessageHandler } from "../port.js";
import { subjectPattern } from "../subject.js";
import { ackDelivery, claimDeliveries, delayDelivery, type Claim, type StoredDelivery } from "./storage.js";

export interface InProcessConsumer {
  readonly filterSubject: string;
  /** Something may be ready: claim now instead of waiting for the next deadline or poll. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * One durable consumer's loop: claim as many deliveries as there are free handler slots, run them, and
 * when nothing is ready sleep until a publish wakes it, the next pending deadline, or the poll interval
 * (the fallback for a wake-up lost between processes).
 */
export function startInProcessConsumer(
  db: Kysely<unknown>,
  options: ConsumerOptions,
  handler: MessageHandler,
  context: { deadLetter: DeadLetterSink; logger: Logger; pollIntervalMs: number; sole: boolean },
): InProcessConsumer {
  const { durable } = options;
  const ackWaitMs = options.ackWaitMs ?? defaultAckWaitMs;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const pattern = subjectPattern(options.filterSubject);
  const { logger, pollIntervalMs } = context;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const stopping = new AbortController();
  // Every handler in flight may listen on it.
  setMaxListeners(0, stopping.signal);
  let ready = true;
  const idle = interruptibleWait(() => ready || stopped);

  const wake = () => {
    ready = true;
    idle.interrupt();
  };

  const toDelivery = (stored: StoredDelivery): Delivery => ({
    ...stored,
    ack: () => ackDelivery(db, durable, stored.seq),
    nak: (delayMs) => delayDelivery(db, durable, stored, delayMs),
    working: () => delayDelivery(db, durable, stored, ackWaitMs),
  });

  const run = (stored: StoredDelivery) => {
    const task = handleDelivery(toDelivery(stored), handler, options, context.deadLetter, logger, stopping.signal, context.sole)
      .catch((err) => logger.error({ err, durable, msgId: stored.msgId }, "settling a message failed; it will be redelivered"))
      .finally(() => {
        inFlight.delete(task);
        wake();
      });
    inFlight.add(task);
  };

  const loop = async () => {
    while (!stopped) {
      const free = concurrency - inFlight.size;
      if (free <= 0) {
        await Promise.race(inFlight);
        continue;
      }
      ready = false;
      let claim: Claim;
      try {
        claim = await claimDeliveries(db, { durable, pattern, ackWaitMs }, free);
      } catch (err) {
        if (stopped) break;
        logger.error({ err, durable }, "claiming messages failed");
        await idle.wait(pollIntervalMs);
        continue;
      }
      claim.deliveries.forEach(run);
      if (stopped) break;
      if (claim.deliveries.length === free || claim.behind || ready) continue;
      await idle.wait(Math.min(Math.max(claim.nextDueInMs ?? pollIntervalMs, 5), pollIntervalMs));
    }
  };
  const looping = loop();

  return {
    filterSubject: options.filterSubject,
    wake,
    async stop() {
      stopped = true;
      stopping.abort();
      idle.interrupt();
      await looping;
      await Promise.all(inFlight);
    },
  };
}
