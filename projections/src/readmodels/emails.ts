import { emailStatusAfter, type EmailEvent, type EmailStatus } from "@tidings/domain";
import type { RecordedEvent } from "@tidings/eventstore";
import { addressColumns, addressRow } from "./addressColumns.js";
import { attachmentsTable, upsertAttachments } from "./attachmentRows.js";
import { holds, type BatchContext, type Projection } from "../engine/projection.js";
import { eventDataOf, type EventData } from "../engine/eventData.js";
import { teamResourceTable } from "./teamResourceTable.js";

const dataOf = eventDataOf<EmailEvent>();

function created(event: RecordedEvent, context: BatchContext) {
  const data = dataOf<"EmailQueued">(event);
  const scheduledAt = event.type === "EmailScheduled" ? dataOf<"EmailScheduled">(event).scheduledAt : null;
  context.upsert("emails", {
    id: data.emailId,
    team_id: data.teamId,
    ...addressRow(data),
    subject: data.subject,
    html: data.html,
    text: data.text,
    tags: data.tags,
    last_event: scheduledAt === null ? "queued" : "scheduled",
    // The send timer queues a scheduled email with an EmailQueued of its own: the row keeps its time.
    ...(scheduledAt === null ? {} : { scheduled_at: scheduledAt }),
    template_id: data.templateId,
    broadcast_id: data.broadcastId ?? null,
    created_at: data.createdAt,
  });
  upsertAttachments(context, "email_attachments", data, data.attachments);
}

/**
 * Emails as GET and list show them, with their attachments' metadata (the bytes are in the blob store).
 * Delivery does not read this table: the saga folds the email's stream.
 */
export const emailsProjection = {
  name: "emails",
  // 2: `broadcast_id`.
  version: 2,
  tables: {
    emails: teamResourceTable(
      {
        ...addressColumns,
        subject: { type: "text" },
        html: { type: "text", nullable: true },
        text: { type: "text", nullable: true },
        tags: { type: "jsonb", ...holds<EventData<EmailEvent, "EmailQueued">["tags"]>() },
        last_event: { type: "text", ...holds<EmailStatus>() },
        scheduled_at: { type: "timestamptz", nullable: true },
        template_id: { type: "uuid", nullable: true },
        broadcast_id: { type: "uuid", nullable: true },
        created_at: { type: "timestamptz" },
      },
      { by_broadcast: "(broadcast_id) WHERE broadcast_id IS NOT NULL" },
    ),
    email_attachments: attachmentsTable({
      filename: { type: "text" },
      disposition: { type: "text", ...holds<EventData<EmailEvent, "EmailQueued">["attachments"][number]["disposition"]>() },
    }),
  },
  handlers: {
    EmailQueued: created,
    EmailScheduled: created,
    EmailRescheduled(event, context) {
      const { emailId, scheduledAt } = dataOf<"EmailRescheduled">(event);
      context.update("emails", { id: emailId }, { scheduled_at: scheduledAt });
    },
    // The row is made by the email's first event; every later one that moves its status updates it.
    ...Object.fromEntries(
      Object.entries(emailStatusAfter)
        .filter(([type]) => type !== "EmailQueued" && type !== "EmailScheduled")
        .map(([type, lastEvent]) => [
        type,
        (event: RecordedEvent, context: BatchContext) =>
          context.update("emails", { id: (event.data as { emailId: string }).emailId }, { last_event: lastEvent }),
      ]),
    ),
  },
} satisfies Projection;
