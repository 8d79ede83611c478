import type { WebhookEvent, WebhookStatus } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

/**
 * Webhooks as GET and list show them, secrets still sealed. The webhook saga looks here for the webhooks
 * an event is due to (a lookup); it checks each one against its stream before sending. `created_commit`
 * and `created_prepare` are the creation's position: an event earlier in `$all` is not due to the webhook.
 */
export const webhooksProjection = {
  name: "webhooks",
  version: 1,
  tables: {
    webhooks: teamResourceTable({
      columns: {
        endpoint: { type: "text" },
        events: { type: "jsonb", ...holds<string[]>() },
        status: { type: "text", ...holds<WebhookStatus>() },
        secret: { type: "text" },
        previous_secret: { type: "text", nullable: true },
        previous_valid_until: { type: "timestamptz", nullable: true },
        created_at: { type: "timestamptz" },
        created_commit: { type: "numeric" },
        created_prepare: { type: "numeric" },
      },
    }),
  },
  handlers: handlersOf<WebhookEvent>({
    WebhookCreated(data, context, event) {
      context.upsert("webhooks", {
        id: data.webhookId,
        team_id: data.teamId,
        endpoint: data.endpoint,
        events: data.events,
        status: "enabled",
        secret: data.secret,
        previous_secret: null,
        previous_valid_until: null,
        created_at: data.createdAt,
        created_commit: event.position.commit.toString(),
        created_prepare: event.position.prepare.toString(),
      });
    },
    WebhookUpdated({ webhookId, endpoint, events, status }, context) {
      context.update("webhooks", { id: webhookId }, { endpoint, events, status });
    },
    WebhookSigningSecretRotated({ webhookId, secret, previousSecret, previousValidUntil }, context) {
      context.update("webhooks", { id: webhookId }, { secret, previous_secret: previousSecret, previous_valid_until: previousValidUntil });
    },
    WebhookDeleted(data, context) {
      context.delete("webhooks", { id: data.webhookId });
    },
  }),
} satisfies Projection;
