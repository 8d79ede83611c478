import type { WebhookEventCategory } from "./category.js";

/**
 * Domain types (reference §8.1). Subscribable now; their payloads (§8.2) are built once the domain
 * aggregate exists, by adding its builders here.
 */
export const domainWebhookEvents: WebhookEventCategory = {
  streamCategory: "domain",
  types: ["domain.created", "domain.updated", "domain.deleted"],
  payloads: {},
};
