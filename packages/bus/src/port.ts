/**
 * The bus port (docs/architecture.md §5). Sagas consume at least once through durable consumers; they make effects
 * exactly once themselves, by keying every effect on the event that caused it. Two adapters implement
 * this: NATS JetStream, and an in-process bus kept durable in the embedded database.
 */

export interface PublishOptions {
  /** Deduplication id: a second publish with the same id is dropped (JetStream `Nats-Msg-Id`). */
  msgId: string;
  headers?: Record<string, string>;
}

export interface BusMessage {
  subject: string;
  /** The JSON body as published. */
  data: unknown;
  msgId: string;
  headers: Record<string, string>;
  /** 1 on first delivery, 2 on the first redelivery, … */
  deliveryCount: number;
  /** Done: never deliver again. */
  ack(): Promise<void>;
  /** Not done: deliver again after `delayMs` (0 = now), unless this was the last allowed delivery. */
  nak(delayMs?: number): Promise<void>;
  /** Still working: push the redelivery deadline out by the consumer's ack wait. */
  working(): Promise<void>;
  /**
   * Aborted once the consumer stops. A long handler stops early by throwing: its message goes back at once
   * for the next consumer (another process, or this one after a restart), without a backoff, so it must be
   * safe to take up again from where the handler left it. The delivery counts toward `maxDeliver`, as a
   * crash's would.
   */
  stopping: AbortSignal;
  /**
   * Whether this delivery is surely still this process's: false once its ack wait may have run out
   * unseen, as when the process stood still (starved or paused) for half the ack wait since the message
   * came, or a consumer without heartbeat held it that long. The bus may then have handed the message to
   * another process, which works on it too. A handler checks it just before an effect that cannot be
   * taken back, and throws instead: the message goes back, and its next delivery finds what the other
   * one did (docs/architecture.md §5, "Holding a message").
   */
  stillHeld(): boolean;
}

export interface ConsumerOptions {
  /** Durable name: consumers with the same name share progress, across processes and restarts. */
  durable: string;
  /** One subject filter with NATS wildcards (`events.email.*`, `events.>`). NATS 2.9 takes only one. */
  filterSubject: string;
  /** Deliveries before the message goes to the dead-letter subject. */
  maxDeliver: number;
  /** A delivered message not acked, nak'ed or `working()` within this time is redelivered. Defaults to 30 s. */
  ackWaitMs?: number;
  /**
   * Long handlers: `working()` is called every third of the ack wait while the handler runs, so a short
   * ack wait redelivers only what a dead process held, within seconds, however long the work takes.
   */
  heartbeat?: boolean;
  /** How many messages may be in the handler at once. Defaults to 1, which keeps subject order. */
  concurrency?: number;
  /** Redelivery delay after the handler throws on delivery `deliveryCount`. Defaults to the bus's retry backoff. */
  backoffMs?: (deliveryCount: number) => number;
}

/**
 * Called once per delivery. Returning normally without settling acks the message; throwing naks it
 * with the consumer's backoff. After `maxDeliver` failed deliveries the message is published to
 * `deadLetterSubject(durable)` with its original subject in the `tidings-original-subject` header, and acked.
 */
export type MessageHandler = (message: BusMessage) => Promise<void>;

export interface Consumer {
  /** Stops taking messages, aborts the handlers' `stopping`, and resolves once the handlers in flight have settled theirs. */
  stop(): Promise<void>;
}

export interface Bus {
  /** Resolves once the message is stored. Subjects live under `events.`; the NATS streams hold nothing else. */
  publish(subject: string, data: unknown, options: PublishOptions): Promise<void>;
  consume(options: ConsumerOptions, handler: MessageHandler): Promise<Consumer>;
  /** Messages that exhausted their tries, per durable consumer, oldest first, for `tidings` status. */
  deadLetters(durable: string, limit?: number): Promise<DeadLetter[]>;
  /** One dead letter of a durable by its id; undefined once it is removed, or when the id is another durable's. */
  deadLetter(durable: string, id: string): Promise<DeadLetter | undefined>;
  /** Deletes a dead letter (after a retry republished it, or when a person drops it); false when it was gone already. */
  removeDeadLetter(durable: string, id: string): Promise<boolean>;
  /** Messages a durable consumer has not acked yet, delivered or not; 0 for a durable not created yet. For metrics. */
  pending(durable: string): Promise<number>;
  /** Stops every consumer (waiting for their handlers) and lets go of the connection; a database passed in stays open. */
  close(): Promise<void>;
}

export interface DeadLetter {
  /** Where the letter is kept (its sequence in the dead-letter store): unique, and never reused by another letter. */
  id: string;
  /** The original message's subject, id, body and headers. */
  subject: string;
  msgId: string;
  data: unknown;
  headers: Record<string, string>;
  deliveryCount: number;
  error: string;
  deadAt: Date;
}

export const deadLetterSubject = (durable: string) => `deadletter.${durable}`;

/** Retry delays after a thrown handler, unless the bus is given others (BUS_RETRY_BACKOFF_MS): 1 s, 5 s, 30 s, 2 min, then 10 min. */
export const defaultBusRetryBackoffMs = [1_000, 5_000, 30_000, 120_000, 600_000];

/** The redelivery delay after a thrown handler on delivery `deliveryCount`, from a schedule whose last step repeats. */
export const backoffFrom =
  (steps: readonly number[]) =>
  (deliveryCount: number): number =>
    steps[Math.min(deliveryCount, steps.length) - 1] ?? 0;

export const backoffDelayMs = backoffFrom(defaultBusRetryBackoffMs);
