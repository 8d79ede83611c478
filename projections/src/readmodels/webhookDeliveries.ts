import type { WebhookDeliveryEvent, WebhookDeliveryStatus } from "@tidings/domain";
import { holds, type BatchContext, type Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { newestFirstPerTeam } from "./teamResourceTable.js";

/** A delivery's status moves, and with it when it does, for the sweep; only an attempt that will be tried again has a next one. */
const moveDelivery = (context: BatchContext, deliveryId: string, status: WebhookDeliveryStatus, nextAttemptAt: string | null, at: string) =>
  context.update("webhook_deliveries", { id: deliveryId }, { status, next_attempt_at: nextAttemptAt, status_at: at });

/**
 * A webhook's deliveries (`webhook_event`s, docs/wire-compatibility.md §6.16) and each one's attempts. An attempt's id is
 * the id of the event that recorded it. The delivery saga does not read these: it folds the streams.
 */
export const webhookDeliveriesProjection = {
  name: "webhook_deliveries",
  // 2: `by_team`, for an erasure's scan of the team's deliveries (a deleted webhook's stay).
  version: 2,
  tables: {
    webhook_deliveries: {
      columns: {
        id: { type: "uuid" },
        webhook_id: { type: "uuid" },
        team_id: { type: "uuid" },
        event_type: { type: "text" },
        payload: { type: "jsonb", ...holds<Record<string, unknown>>() },
        status: { type: "text", ...holds<WebhookDeliveryStatus>() },
        next_attempt_at: { type: "timestamptz", nullable: true },
        /** When the status last changed: the webhook saga's sweep looks for deliveries left pending. */
        status_at: { type: "timestamptz" },
        created_at: { type: "timestamptz" },
      },
      primaryKey: ["id"],
      indexes: {
        by_webhook: "(webhook_id, created_at DESC, id DESC)",
        by_team: newestFirstPerTeam,
        unfinished: "(status_at) WHERE status IN ('pending', 'attempting')",
      },
    },
    webhook_attempts: {
      columns: {
        id: { type: "uuid" },
        delivery_id: { type: "uuid" },
        attempt: { type: "integer" },
        http_status_code: { type: "integer", nullable: true },
        response: { type: "text" },
        duration_ms: { type: "integer" },
        sent_at: { type: "timestamptz" },
      },
      primaryKey: ["id"],
      indexes: { by_delivery: "(delivery_id, sent_at DESC, id DESC)" },
    },
  },
  handlers: handlersOf<WebhookDeliveryEvent>({
    WebhookDeliveryCreated(data, context) {
      context.upsert("webhook_deliveries", {
        id: data.deliveryId,
        webhook_id: data.webhookId,
        team_id: data.teamId,
        event_type: data.eventType,
        payload: data.payload,
        status: "pending",
        next_attempt_at: null,
        status_at: data.createdAt,
        created_at: data.createdAt,
      });
    },
    WebhookDeliveryAttempted(data, context, event) {
      const status = data.succeeded ? "success" : data.nextAttemptAt === null ? "failed" : "attempting";
      moveDelivery(context, data.deliveryId, status, data.succeeded ? null : data.nextAttemptAt, data.attemptedAt);
      context.upsert("webhook_attempts", {
        id: event.id,
        delivery_id: data.deliveryId,
        attempt: data.attempt,
        http_status_code: data.statusCode,
        response: data.response,
        duration_ms: data.durationMs,
        sent_at: data.attemptedAt,
      });
    },
    WebhookDeliveryReplayed({ deliveryId, replayedAt }, context) {
      moveDelivery(context, deliveryId, "pending", null, replayedAt);
    },
    WebhookDeliveryAbandoned({ deliveryId, abandonedAt }, context) {
      moveDelivery(context, deliveryId, "failed", null, abandonedAt);
    },
  }),
} satisfies Projection;
