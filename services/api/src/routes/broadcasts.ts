import { z } from "zod";
import { TidingsError } from "@tidings/core";
import { wireBroadcastStatuses, type BroadcastContent } from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import {
  cancelBroadcast,
  createBroadcast,
  deleteBroadcast,
  duplicateBroadcast,
  sendBroadcast,
  updateBroadcast,
} from "../handlers/broadcasts.js";
import { listQuerySchema, listSchema } from "../pagination.js";
import { getBroadcast, listBroadcasts, listRecipients, recipientTypes } from "../queries/broadcasts.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import { sendingDomainCache } from "../lookups/sendingDomainCache.js";
import { sendingPauseCheck } from "../lookups/sendingPauses.js";
import { listClickedLinks } from "../queries/broadcastEngagement.js";
import { previewBroadcast } from "../queries/broadcastPreview.js";
import { requireAuth } from "../plugins/auth.js";
import type { ApiServices } from "../services.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { mailboxText } from "./documentedText.js";
import { teamReads } from "./readRoutes.js";

const tags = ["broadcasts"];
const params = z.object({ id: z.uuid() });
const scheduledAt = z.string().describe("ISO 8601, or a phrase such as `in 1 hour`.");

const contentShape = {
  segment_id: z.uuid().optional().describe("The segment whose contacts receive the broadcast."),
  audience_id: z.uuid().optional().describe("Legacy name of `segment_id`."),
  from: mailboxText().describe("`email@example.com` or `Name <email@example.com>`."),
  subject: z.string().min(1),
  html: z.string().optional().describe("May hold `{{{contact.<field>|fallback}}}` and `{{{SERVICE_UNSUBSCRIBE_URL}}}`."),
  text: z.string().optional().describe("Generated from html per recipient when omitted; none when empty."),
  name: z.string().max(255).optional(),
  reply_to: z.union([mailboxText(), z.array(mailboxText())]).optional(),
  preview_text: z.string().max(1000).optional(),
  topic_id: z.uuid().nullable().optional().describe("Only contacts opted in to this topic receive it."),
};
/** A draft may change or go; a sent or sending broadcast may not (the decider's `broadcast_state_conflict`). */
const stateErrors = { broadcast_state_conflict: "The broadcast's state does not allow this (it is sent, or not scheduled)." };
/** A send, beyond the state: the team or the `from` domain paused for its reputation. */
const sendErrors = {
  ...stateErrors,
  sending_paused: "The team, or the `from` domain, is paused for its bounce or complaint rate (403); the message names the rate.",
};
const createBody = z
  .object({
    ...contentShape,
    send: z.boolean().optional().describe("Send at once, or at `scheduled_at`, without a separate send call."),
    scheduled_at: scheduledAt.optional().describe("ISO 8601, or a phrase such as `in 1 hour`; only with `send: true`."),
  })
  // The route refuses `scheduled_at` without `send: true`, with a message naming both; `.meta()` documents it.
  .meta({ dependentSchemas: { scheduled_at: { required: ["send"], properties: { send: { const: true } } } } });
const updateBody = z.object({ ...contentShape, from: contentShape.from.optional(), subject: contentShape.subject.optional() });
type ContentBody = z.infer<typeof updateBody>;

/** Wire fields to the domain's, only those given: a PATCH changes what it names and nothing else. */
function contentChanges(body: ContentBody): Partial<BroadcastContent> {
  if (body.segment_id !== undefined && body.audience_id !== undefined && body.segment_id !== body.audience_id)
    throw new TidingsError("validation_error", "`segment_id` and `audience_id` name the same thing; give one, or the same id in both.");
  const changes: Partial<BroadcastContent> = {};
  const segmentId = body.segment_id ?? body.audience_id;
  if (segmentId !== undefined) changes.segmentId = segmentId;
  if (body.from !== undefined) changes.from = body.from;
  if (body.subject !== undefined) changes.subject = body.subject;
  if (body.html !== undefined) changes.html = body.html;
  if (body.text !== undefined) changes.text = body.text;
  if (body.name !== undefined) changes.name = body.name;
  if (body.reply_to !== undefined) changes.replyTo = typeof body.reply_to === "string" ? [body.reply_to] : body.reply_to;
  if (body.preview_text !== undefined) changes.previewText = body.preview_text;
  if (body.topic_id !== undefined) changes.topicId = body.topic_id;
  return changes;
}

const emptyContent: BroadcastContent = {
  name: null,
  segmentId: null,
  from: null,
  subject: null,
  html: null,
  text: null,
  replyTo: null,
  previewText: null,
  topicId: null,
};

const listItem = z.object({
  id: z.uuid(),
  name: z.string().nullable(),
  audience_id: z.uuid().nullable(),
  segment_id: z.uuid().nullable(),
  status: z.enum(wireBroadcastStatuses),
  created_at: wireTimestampText(),
  scheduled_at: wireTimestampText().nullable(),
  sent_at: wireTimestampText().nullable(),
  topic_id: z.uuid().nullable(),
});
const counts = z
  .object({
    recipients: z.number().int(),
    queued: z.number().int(),
    sent: z.number().int(),
    delivered: z.number().int(),
    delivery_delayed: z.number().int(),
    bounced: z.number().int(),
    failed: z.number().int(),
    suppressed: z.number().int(),
    complained: z.number().int(),
    canceled: z.number().int(),
  })
  .describe(
    "The per-recipient ledger: `recipients` planned, `queued` handed to delivery, " +
      "`sent` accepted by the receiving server, then each outcome.",
  );
const broadcast = listItem.extend({
  object: z.literal("broadcast"),
  from: z.string().nullable(),
  subject: z.string().nullable(),
  reply_to: z.array(z.string()).nullable(),
  preview_text: z.string().nullable(),
  html: z.string().nullable(),
  text: z.string().nullable(),
  counts,
});
const reference = z.object({ object: z.literal("broadcast"), id: z.uuid() });
const deleted = reference.extend({ deleted: z.literal(true) });
const recipientsQuery = listQuerySchema({
  type: z.enum(recipientTypes).optional().describe("Only recipients of this kind; all when omitted."),
  email: z.string().max(320).optional(),
  bounce_type: z.enum(["permanent", "transient", "undetermined"]).optional().describe("Only with `type=bounced`."),
}).refine((q: { type?: string; bounce_type?: string }) => q.bounce_type === undefined || q.type === "bounced", {
  message: "`bounce_type` is only allowed with `type=bounced`.",
});
const recipient = z.object({
  id: z.uuid(),
  contact_id: z.uuid().nullable(),
  email: z.string(),
  status: z.string(),
  bounce_type: z.string().optional(),
  count: z.number().int().optional().describe("With `type=opened` or `type=clicked`: how often a person opened, or clicked."),
  clicked_links: z.array(z.object({ url: z.string(), clicks: z.number().int() })).optional(),
});
const clickedLink = z.object({ id: z.uuid(), url: z.string(), clicks: z.number().int(), unique_clicks: z.number().int() });
const previewQuery = z.object({
  contact: z.string().min(1).max(320).describe("The id or email of a contact of the broadcast's segment."),
});
const preview = z.object({
  object: z.literal("broadcast_preview"),
  broadcast_id: z.uuid(),
  contact_id: z.uuid(),
  to: z.string(),
  from: z.string().nullable(),
  subject: z.string(),
  html: z.string().nullable(),
  text: z.string().nullable(),
});

/** `/broadcasts` (docs/wire-compatibility.md §6.11). Writes go through the event store; a write replies once the read model shows it. */
export function broadcastRoutes(services: ApiServices): ApiRoutes {
  const deps = {
    store: services.store,
    clock: services.clock,
    config: services.config,
    domains: sendingDomainCache(services.store),
    paused: sendingPauseCheck(services.database),
  };
  const write = callerWrites(services);

  return (app) => {
    app.post(
      "/broadcasts",
      { config: { idempotency: true }, schema: { tags, summary: "Create a broadcast", body: createBody, response: { 201: reference } } },
      async (request, reply) => {
        const { send, scheduled_at, ...body } = request.body;
        if (scheduled_at !== undefined && send !== true)
          throw new TidingsError("validation_error", "`scheduled_at` is only allowed with `send: true`.");
        const content = { ...emptyContent, ...contentChanges(body) };
        if (content.segmentId === null) throw new TidingsError("missing_required_field", "Missing `segment_id` field.");
        const result = await write(request, (auth, metadata) =>
          createBroadcast(deps, auth, content, { send: send === true, scheduledAt: scheduled_at }, metadata),
        );
        return created(reply, { object: "broadcast" as const, id: result.id });
      },
    );

    const reads = teamReads(app, services.database, tags);
    reads.list("/broadcasts", listQuerySchema(), listItem, listBroadcasts, { summary: "List broadcasts" });

    app.get(
      "/broadcasts/:id",
      { schema: { tags, summary: "Retrieve a broadcast", params, response: { 200: broadcast } } },
      async (request, reply) => ok(reply, await reads.one(request, getBroadcast, request.params.id, "Broadcast not found")),
    );

    app.patch(
      "/broadcasts/:id",
      {
        schema: { tags, summary: "Update a draft broadcast", params, errors: stateErrors, body: updateBody, response: { 200: reference } },
      },
      async (request, reply) => {
        const result = await write(request, (auth, metadata) =>
          updateBroadcast(deps, auth.teamId, request.params.id, contentChanges(request.body), metadata),
        );
        return ok(reply, { object: "broadcast" as const, id: result.id });
      },
    );

    app.delete(
      "/broadcasts/:id",
      { schema: { tags, summary: "Delete a draft broadcast", params, errors: stateErrors, response: { 200: deleted } } },
      async (request, reply) => {
        const result = await write(request, (auth, metadata) => deleteBroadcast(deps, auth.teamId, request.params.id, metadata));
        return ok(reply, { object: "broadcast" as const, id: result.id, deleted: true as const });
      },
    );

    app.post(
      "/broadcasts/:id/send",
      {
        schema: {
          tags,
          summary: "Send or schedule a draft broadcast",
          params,
          errors: sendErrors,
          body: z.object({ scheduled_at: scheduledAt.optional() }),
          response: { 200: reference },
        },
      },
      async (request, reply) => {
        const result = await write(request, (auth, metadata) =>
          sendBroadcast(deps, auth, request.params.id, request.body.scheduled_at, metadata),
        );
        return ok(reply, { object: "broadcast" as const, id: result.id });
      },
    );

    app.post(
      "/broadcasts/:id/cancel",
      {
        schema: {
          tags,
          summary: "Cancel a scheduled, queued or sending broadcast",
          params,
          errors: stateErrors,
          response: { 200: reference },
        },
      },
      async (request, reply) => {
        const result = await write(request, (auth, metadata) => cancelBroadcast(deps, auth.teamId, request.params.id, metadata));
        return ok(reply, { object: "broadcast" as const, id: result.id });
      },
    );

    app.post(
      "/broadcasts/:id/duplicate",
      { schema: { tags, summary: "Copy a broadcast into a new draft", params, response: { 201: reference } } },
      async (request, reply) => {
        const result = await write(request, (auth, metadata) => duplicateBroadcast(deps, auth.teamId, request.params.id, metadata));
        return created(reply, { object: "broadcast" as const, id: result.id });
      },
    );

    app.get(
      "/broadcasts/:id/recipients",
      {
        schema: {
          tags,
          summary: "List a broadcast's recipients",
          params,
          querystring: recipientsQuery,
          response: { 200: listSchema(recipient) },
        },
      },
      async (request, reply) => {
        await reads.one(request, getBroadcast, request.params.id, "Broadcast not found");
        return ok(reply, await listRecipients(services.database, request.params.id, request.query));
      },
    );

    app.get(
      "/broadcasts/:id/preview",
      {
        schema: {
          tags,
          summary: "Preview a broadcast for one contact",
          description:
            "The subject, html and text one contact of the broadcast's segment would receive, its placeholders filled as the send fills them; the unsubscribe link is an inert placeholder. A Tidings extension.",
          params,
          querystring: previewQuery,
          response: { 200: preview },
        },
      },
      async (request, reply) => {
        const broadcast = await reads.one(request, getBroadcast, request.params.id, "Broadcast not found");
        return ok(reply, await previewBroadcast(services.database, requireAuth(request).teamId, broadcast, request.query.contact));
      },
    );

    app.get(
      "/broadcasts/:id/clicked-links",
      {
        schema: {
          tags,
          summary: "List a broadcast's clicked links",
          description: "People's clicks on the broadcast's tracked links, most clicked first; scanner and proxy clicks are not counted.",
          params,
          querystring: listQuerySchema(),
          response: { 200: listSchema(clickedLink) },
        },
      },
      async (request, reply) => {
        await reads.one(request, getBroadcast, request.params.id, "Broadcast not found");
        return ok(reply, await listClickedLinks(services.database, request.params.id, request.query));
      },
    );
  };
}
