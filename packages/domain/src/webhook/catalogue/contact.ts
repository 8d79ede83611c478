import type { WebhookEventCategory } from "./category.js";

/**
 * Contact types (reference §8.1). Subscribable now; their payloads (§8.2) are built once the contact
 * aggregate exists, by adding its builders here.
 */
export const contactWebhookEvents: WebhookEventCategory = {
  streamCategory: "contact",
  types: ["contact.created", "contact.updated", "contact.deleted", "contact.topics.updated"],
  payloads: {},
};
