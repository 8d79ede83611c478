import type { PayloadBuilder, WebhookEventCategory } from "./category.js";
import { contactErasureWebhookEvents, contactWebhookEvents } from "./contact.js";
import { domainWebhookEvents } from "./domain.js";
import { emailWebhookEvents } from "./email.js";
import { inboundWebhookEvents } from "./inbound.js";

export * from "./category.js";
export { emailWebhookEvents } from "./email.js";
export { contactErasureWebhookEvents } from "./contact.js";

/** Every category of webhook events; a new one is a file beside these and a line here. */
export const webhookEventCategories: readonly WebhookEventCategory[] = [
  emailWebhookEvents,
  inboundWebhookEvents,
  contactWebhookEvents,
  contactErasureWebhookEvents,
  domainWebhookEvents,
];

export const webhookEventTypes: readonly string[] = webhookEventCategories.flatMap((category) => category.types);
const known = new Set(webhookEventTypes);

export const isWebhookEventType = (type: string) => known.has(type);

/** The builder for events of `type` in streams of `streamCategory`, if that event has a webhook type. */
export function payloadBuilderFor(streamCategory: string, type: string): PayloadBuilder | undefined {
  return webhookEventCategories.find((category) => category.streamCategory === streamCategory)?.payloads[type];
}
