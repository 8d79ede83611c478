import { z } from "zod";
import { TidingsError } from "@tidings/core";
import { webhookEventTypes, webhookStatuses } from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { createWebhook } from "../handlers/createWebhook.js";
import { deleteWebhook, rotateWebhookSecret, updateWebhook } from "../handlers/changeWebhook.js";
import { replayWebhookEvent } from "../handlers/replayWebhookEvent.js";
import { webhookSecretSealer } from "../handlers/webhookSecrets.js";
import { listQuerySchema, listSchema } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { getWebhook, getWebhookDelivery, listWebhookAttempts, listWebhookDeliveries, listWebhooks } from "../queries/webhooks.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import { urlText } from "./documentedText.js";
import type { ApiServices } from "../services.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { teamReads } from "./readRoutes.js";

const tags = ["webhooks"];
const params = z.object({ id: z.uuid() });
const eventParams = params.extend({ eventId: z.uuid() });

// The domain checks both (see documentedText.ts).
const endpoint = urlText().describe("The URL events are POSTed to: https (http only in development, see WEBHOOK_ALLOW_PRIVATE).");
const events = z
  .array(z.string().meta({ enum: [...webhookEventTypes] }))
  .meta({ minItems: 1 })
  .describe("Event types to deliver, e.g. `email.sent` (docs/wire-compatibility.md §8.1); at least one.");
const createBody = z.object({ endpoint, events });
const updateBody = z.object({ endpoint: endpoint.optional(), events: events.optional(), status: z.enum(webhookStatuses).optional() });

const listItem = z.object({
  id: z.uuid(),
  endpoint: z.string(),
  created_at: wireTimestampText(),
  status: z.enum(webhookStatuses),
  events: z.array(z.string()).nullable(),
});
const webhook = listItem.extend({ object: z.literal("webhook"), signing_secret: z.string() });
const reference = z.object({ object: z.literal("webhook"), id: z.uuid() });
const withSecret = reference.extend({ signing_secret: z.string() });
const deleted = reference.extend({ deleted: z.literal(true) });

const deliveryStatus = z.enum(["pending", "attempting", "success", "failed"]);
const deliveryItem = z.object({ id: z.uuid(), type: z.string(), created_at: wireTimestampText(), status: deliveryStatus });
const delivery = deliveryItem.extend({
  object: z.literal("webhook_event"),
  next_attempt_at: wireTimestampText().nullable(),
  payload: z.unknown(),
});
const deliveryReference = z.object({ object: z.literal("webhook_event"), id: z.uuid() });
const attempt = z.object({
  id: z.uuid(),
  http_status_code: z.number().int().nullable(),
  response: z.string(),
  duration_ms: z.number().int(),
  sent_at: wireTimestampText(),
});

const webhookMissing = "Webhook not found";
const webhookNotFound = () => new TidingsError("not_found", webhookMissing);
const deliveryNotFound = () => new TidingsError("not_found", "Webhook event not found");

/**
 * `/webhooks` (docs/wire-compatibility.md §6.16). Writes go through the event store and reply once the read model shows
 * them; deliveries (`webhook_event`s) and their attempts are recorded by the webhook saga.
 */
export function webhookRoutes(services: ApiServices): ApiRoutes {
  const sealer = webhookSecretSealer(services.secret);
  const write = callerWrites(services);

  return (app) => {
    app.post("/webhooks", { schema: { tags, body: createBody, response: { 201: withSecret } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) => createWebhook(services, auth.teamId, request.body, metadata));
      return created(reply, { object: "webhook" as const, id: result.id, signing_secret: result.signingSecret });
    });

    const reads = teamReads(app, services.database, tags);
    reads.list("/webhooks", listQuerySchema(), listItem, listWebhooks);

    app.get("/webhooks/:id", { schema: { tags, params, response: { 200: webhook } } }, async (request, reply) => {
      const { secret, ...rest } = await reads.one(request, getWebhook, request.params.id, webhookMissing);
      return ok(reply, { object: "webhook" as const, ...rest, signing_secret: sealer.openText(secret) });
    });

    app.patch("/webhooks/:id", { schema: { tags, params, body: updateBody, response: { 200: reference } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) =>
        updateWebhook(services, auth.teamId, request.params.id, request.body, metadata),
      );
      return ok(reply, { object: "webhook" as const, id: result.id });
    });

    app.delete("/webhooks/:id", { schema: { tags, params, response: { 200: deleted } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) => deleteWebhook(services, auth.teamId, request.params.id, metadata));
      return ok(reply, { object: "webhook" as const, id: result.id, deleted: true as const });
    });

    app.post("/webhooks/:id/signing-secret/rotate", { schema: { tags, params, response: { 200: withSecret } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) => rotateWebhookSecret(services, auth.teamId, request.params.id, metadata));
      return ok(reply, { object: "webhook" as const, id: result.id, signing_secret: result.signingSecret });
    });

    app.get(
      "/webhooks/:id/events",
      { schema: { tags, params, querystring: listQuerySchema(), response: { 200: listSchema(deliveryItem) } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        if (!(await getWebhook(services.database, auth.teamId, request.params.id))) throw webhookNotFound();
        return ok(reply, await listWebhookDeliveries(services.database, auth.teamId, request.params.id, request.query));
      },
    );

    app.get(
      "/webhooks/:id/events/:eventId",
      { schema: { tags, params: eventParams, response: { 200: delivery } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        const found = await getWebhookDelivery(services.database, auth.teamId, request.params.id, request.params.eventId);
        if (!found) throw deliveryNotFound();
        return ok(reply, { object: "webhook_event" as const, ...found });
      },
    );

    app.post(
      "/webhooks/:id/events/:eventId/replay",
      { schema: { tags, params: eventParams, response: { 200: deliveryReference } } },
      async (request, reply) => {
        const { id, eventId } = request.params;
        await write(request, (auth, metadata) => replayWebhookEvent(services, auth.teamId, id, eventId, metadata));
        return ok(reply, { object: "webhook_event" as const, id: eventId });
      },
    );

    app.get(
      "/webhooks/:id/events/:eventId/attempts",
      { schema: { tags, params: eventParams, querystring: listQuerySchema(), response: { 200: listSchema(attempt) } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        const { id, eventId } = request.params;
        const page = await listWebhookAttempts(services.database, auth.teamId, id, eventId, request.query);
        if (!page) throw deliveryNotFound();
        return ok(reply, page);
      },
    );
  };
}
