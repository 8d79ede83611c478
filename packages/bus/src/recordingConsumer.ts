import type { Bus, BusMessage, Consumer, ConsumerOptions } from "./port.js";

/** One delivery as a test saw it. */
export interface Received {
  msgId: string;
  subject: string;
  data: unknown;
  headers: Record<string, string>;
  deliveryCount: number;
  /** Date.now() when the handler was called. */
  at: number;
}

export interface RecordingConsumer {
  received: Received[];
  consumer: Consumer;
  /** Resolves once `count` deliveries were received; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  stop(): Promise<void>;
}

/**
 * A consumer for the contract suite that records every delivery before running `behaviour` (which acks by
 * returning, as a saga would).
 */
export async function recordingConsumer(
  bus: Bus,
  options: ConsumerOptions,
  behaviour: (message: BusMessage, received: Received[]) => Promise<void> = async () => {},
): Promise<RecordingConsumer> {
  const received: Received[] = [];
  const consumer = await bus.consume(options, async (message) => {
    const { msgId, subject, data, headers, deliveryCount } = message;
    received.push({ msgId, subject, data, headers, deliveryCount, at: Date.now() });
    await behaviour(message, received);
  });
  return {
    received,
    consumer,
    waitFor: (count, timeoutMs = 10_000) => waitUntil(() => received.length >= count, timeoutMs).then(() => received),
    stop: () => consumer.stop(),
  };
}

export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A promise with its resolve function outside, to hold a handler until the test lets it go. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
