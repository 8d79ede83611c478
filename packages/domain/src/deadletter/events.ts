import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

/**
 * One stream per dead letter (`deadletter-<id>`, the id derived from the consumer, the letter and its message):
 * what people did with it. The letter itself lives on the bus (docs/operations.md, "Dead letters"); these
 * events are the record of who retried or dropped which message, kept after the letter is gone.
 */
export const deadLetterStream = (id: string) => `deadletter-${id}`;

/** The letter as the events name it: enough to find what it carried without its body, which may hold personal data. */
const letter = {
  /** The durable consumer that gave up on the message. */
  consumer: z.string().min(1),
  /** The letter's id on the bus, unique per consumer. */
  letterId: z.string().min(1),
  subject: z.string(),
  messageId: z.string(),
  /** The recorded event the message carried, when it carried one. */
  eventId: z.string().nullable(),
  eventType: z.string().nullable(),
  streamId: z.string().nullable(),
  /** The team of that event, when it has one. */
  teamId: z.string().nullable(),
  deliveryCount: z.number().int().nonnegative(),
  error: z.string(),
  /** Who ordered it, as the metadata's actor says (`cli`, or the API key's). */
  orderedBy: z.string(),
};

/** The message was published again on its subject for its consumers (a retry); the letter was then removed. */
export const DeadLetterRetried = eventSchema("DeadLetterRetried", { ...letter, retriedAt: z.string() });

/** The letter was removed without a retry: a person decided the message needs no more work. */
export const DeadLetterDropped = eventSchema("DeadLetterDropped", { ...letter, droppedAt: z.string() });

export const DeadLetterEvent = eventUnion([DeadLetterRetried, DeadLetterDropped]);
export type DeadLetterEvent = z.infer<typeof DeadLetterEvent>;
export type DeadLetterFacts = Omit<z.infer<typeof DeadLetterRetried>["data"], "retriedAt">;
