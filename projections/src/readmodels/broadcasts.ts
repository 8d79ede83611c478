import type { BroadcastEvent, EmailEvent, EmailStatus, WireBroadcastStatus } from "@tidings/domain";
import { broadcastEmailId } from "@tidings/core";
import { holds, type BatchContext, type Projection } from "../engine/projection.js";
import { handlersOf, type EventData } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

/** Recipients of one batch are ranked after every earlier batch's; a batch holds far fewer than this. */
const RANK_STRIDE = 1_000_000;

const contentColumns = (data: EventData<BroadcastEvent, "BroadcastCreated" | "BroadcastUpdated">) => ({
  name: data.name,
  segment_id: data.segmentId,
  from_address: data.from,
  subject: data.subject,
  html: data.html,
  text: data.text,
  reply_to: data.replyTo,
  preview_text: data.previewText,
  topic_id: data.topicId,
});

const status =
  (value: string, extra: Record<string, unknown> = {}) =>
  (data: { broadcastId: string }, context: BatchContext) =>
    context.update("broadcasts", { id: data.broadcastId }, { status: value, ...extra });

/** A recipient of a broadcast: `planned` in the snapshot until its email exists, then that email's status. */
export type BroadcastRecipientStatus = "planned" | EmailStatus;

/**
 * An email event moves its recipient's ledger row; an email of no broadcast has none, and the update does
 * nothing. An outcome's first also counts the recipient settled in `broadcast_settled`, once.
 */
const outcome =
  <Data extends { emailId: string }>(value: string, extra: (data: Data) => Record<string, unknown> = () => ({})) =>
  (data: Data, context: BatchContext) => {
    context.update("broadcast_recipients", { id: data.emailId }, { status: value, ...extra(data) });
    context.tally(
      "broadcast_settled",
      {
        table: "broadcast_recipients",
        key: { id: data.emailId },
        columns: { broadcast_id: "broadcast_id" },
        once: { column: "settled_counted", value: true },
      },
      { settled: 1 },
    );
  };

/**
 * Broadcasts as GET and list show them, and the per-recipient ledger behind their counts and
 * `GET /broadcasts/:id/recipients`: a row per planned recipient (the snapshot), moved by the recipient's
 * email as delivery records it. The fan-out saga does not read this table: it folds the broadcast's stream.
 */
export const broadcastsProjection = {
  name: "broadcasts",
  version: 2,
  tables: {
    broadcasts: teamResourceTable({
      columns: {
        name: { type: "text", nullable: true },
        segment_id: { type: "uuid", nullable: true },
        from_address: { type: "text", nullable: true },
        subject: { type: "text", nullable: true },
        html: { type: "text", nullable: true },
        text: { type: "text", nullable: true },
        reply_to: { type: "jsonb", nullable: true, ...holds<string[]>() },
        preview_text: { type: "text", nullable: true },
        topic_id: { type: "uuid", nullable: true },
        status: { type: "text", ...holds<WireBroadcastStatus>() },
        created_at: { type: "timestamptz" },
        scheduled_at: { type: "timestamptz", nullable: true },
        sent_at: { type: "timestamptz", nullable: true },
      },
    }),
    broadcast_recipients: {
      columns: {
        /** The recipient's email id. */
        id: { type: "uuid" },
        broadcast_id: { type: "uuid" },
        team_id: { type: "uuid" },
        contact_id: { type: "uuid" },
        email: { type: "text" },
        rank: { type: "bigint" },
        status: { type: "text", ...holds<BroadcastRecipientStatus>() },
        sent_at: { type: "timestamptz", nullable: true, merge: "keep" },
        bounce_type: { type: "text", nullable: true },
        /** Set by the recipient's first outcome, which counted it in `broadcast_settled`. */
        settled_counted: { type: "boolean", nullable: true },
      },
      primaryKey: ["id"],
      indexes: { by_broadcast: "(broadcast_id, status, rank DESC, id DESC)" },
    },
    /**
     * How many of a broadcast's recipients have an outcome (any status past `queued`): the fan-out's
     * in-flight window reads it often, and counting the ledger's rows each time cost a scan of every
     * settled recipient, which grew with the square of the broadcast (docs/scaling.md §3).
     */
    broadcast_settled: {
      columns: {
        broadcast_id: { type: "uuid" },
        settled: { type: "bigint", merge: "add" },
      },
      primaryKey: ["broadcast_id"],
    },
  },
  handlers: handlersOf<BroadcastEvent | EmailEvent>({
    BroadcastCreated(data, context) {
      context.upsert("broadcasts", {
        id: data.broadcastId,
        team_id: data.teamId,
        ...contentColumns(data),
        status: "draft",
        created_at: data.createdAt,
        scheduled_at: null,
        sent_at: null,
      });
    },
    BroadcastUpdated(data, context) {
      context.update("broadcasts", { id: data.broadcastId }, contentColumns(data));
    },
    BroadcastDeleted(data, context) {
      context.delete("broadcasts", { id: data.broadcastId });
    },
    BroadcastScheduled(data, context) {
      context.update("broadcasts", { id: data.broadcastId }, { status: "scheduled", scheduled_at: data.scheduledAt });
    },
    BroadcastUnscheduled: status("draft", { scheduled_at: null }),
    BroadcastQueued: status("queued"),
    BroadcastSendingStarted: status("sending"),
    BroadcastCanceled: status("canceled"),
    BroadcastFailed: status("failed"),
    BroadcastSent(data, context) {
      context.update("broadcasts", { id: data.broadcastId }, { status: "sent", sent_at: data.sentAt });
    },
    BroadcastBatchPlanned(data, context) {
      data.recipients.forEach((recipient, index) =>
        context.upsert("broadcast_recipients", {
          id: broadcastEmailId(data.broadcastId, recipient.contactId),
          broadcast_id: data.broadcastId,
          team_id: data.teamId,
          contact_id: recipient.contactId,
          email: recipient.email,
          // Newest first in lists: the first planned recipient ranks highest.
          rank: RANK_STRIDE * (RANK_STRIDE - data.batch) - index,
          status: "planned",
          sent_at: null,
          bounce_type: null,
        }),
      );
    },
    EmailQueued(data, context) {
      if (data.broadcastId) context.update("broadcast_recipients", { id: data.emailId }, { status: "queued" });
    },
    EmailSent: outcome("sent", (data) => ({ sent_at: data.sentAt })),
    EmailDelivered: outcome("delivered"),
    EmailDeliveryDelayed: outcome("delivery_delayed"),
    EmailBounced: outcome("bounced", (data) => ({ bounce_type: data.bounce.type })),
    EmailFailed: outcome("failed"),
    EmailSuppressed: outcome("suppressed"),
    EmailCanceled: outcome("canceled"),
    EmailComplained: outcome("complained"),
  }),
} satisfies Projection;
