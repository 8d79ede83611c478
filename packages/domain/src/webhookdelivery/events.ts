import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

export const webhookDeliveryStream = (deliveryId: string) => `webhookdelivery-${deliveryId}`;

/** One event, due to one webhook: its id derives from both, so the pair is delivered once (docs/architecture.md §1). */
export const WebhookDeliveryCreated = eventSchema("WebhookDeliveryCreated", {
  deliveryId: z.uuid(),
  webhookId: z.uuid(),
  teamId: z.uuid(),
  /** The id of the event that caused it. */
  eventId: z.string(),
  /** The webhook event type, e.g. `email.sent`. */
  eventType: z.string(),
  /** The body sent on every attempt, built as of the causing event (docs/wire-compatibility.md §8.2). */
  payload: z.object({ type: z.string(), created_at: z.string(), data: z.record(z.string(), z.unknown()) }),
  createdAt: z.string(),
});

/** One POST to the endpoint and how it went; `nextAttemptAt` null after a failure means the delivery failed. */
export const WebhookDeliveryAttempted = eventSchema("WebhookDeliveryAttempted", {
  deliveryId: z.uuid(),
  /** 1 for the first attempt of the delivery, counting on across replays. */
  attempt: z.number().int().positive(),
  succeeded: z.boolean(),
  /** Null when no HTTP answer came (refused address, connection error, time-out). */
  statusCode: z.number().int().nullable(),
  /** The first 1 KB of the answer, or what went wrong before one. */
  response: z.string(),
  durationMs: z.number().int().nonnegative(),
  attemptedAt: z.string(),
  nextAttemptAt: z.string().nullable(),
});

/** A manual re-send: the retry schedule starts over, with the same message id. */
export const WebhookDeliveryReplayed = eventSchema("WebhookDeliveryReplayed", {
  deliveryId: z.uuid(),
  webhookId: z.uuid(),
  replayedAt: z.string(),
});

/** The webhook was disabled or deleted: nothing more is sent (until a replay). */
export const WebhookDeliveryAbandoned = eventSchema("WebhookDeliveryAbandoned", {
  deliveryId: z.uuid(),
  reason: z.string(),
  abandonedAt: z.string(),
});

export const WebhookDeliveryEvent = eventUnion([
  WebhookDeliveryCreated,
  WebhookDeliveryAttempted,
  WebhookDeliveryReplayed,
  WebhookDeliveryAbandoned,
]);
export type WebhookDeliveryEvent = z.infer<typeof WebhookDeliveryEvent>;
export type WebhookDeliveryPayload = z.infer<typeof WebhookDeliveryCreated>["data"]["payload"];
