import type { Resend } from "resend";
import type { ReceivedWebhook, WebhookReceiver } from "./webhookReceiver.js";

/** A delivery's payload as a test reads it: `data` looked into by field name, whatever the event's type. */
export interface WebhookPayload {
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/**
 * A receiver's check of one delivery with the SDK's own helper, from the `svix-*` headers or from the
 * `webhook-*` set a Standard Webhooks receiver reads; throws when the signature is not the secret's.
 */
export function verifiedPayload(
  resend: Resend,
  received: ReceivedWebhook,
  webhookSecret: string,
  headers: "svix" | "webhook" = "svix",
): WebhookPayload {
  const payload: unknown = resend.webhooks.verify({
    payload: received.body,
    headers: {
      id: received.headers[`${headers}-id`]!,
      timestamp: received.headers[`${headers}-timestamp`]!,
      signature: received.headers[`${headers}-signature`]!,
    },
    webhookSecret,
  });
  return payload as WebhookPayload;
}

/** The event types `path` has been sent so far, sorted: deliveries may arrive in any order (docs/wire-compatibility.md §8.4). */
export const eventTypesAt = (receiver: WebhookReceiver, path: string): string[] =>
  receiver
    .at(path)
    .map((r) => (JSON.parse(r.body) as { type: string }).type)
    .sort();
