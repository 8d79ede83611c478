import type { InboundEmailEvent } from "@tidings/domain";
import { mailboxColumns, mailboxRow } from "./mailboxColumns.js";
import { attachmentsTable, upsertAttachments } from "./attachmentRows.js";
import { holds, type Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

/**
 * Received mail as `GET /emails/receiving` lists it, with its attachments' metadata. The body is not
 * here: GET parses it from the raw message in the blob store, the one copy of what arrived.
 */
export const inboundEmailsProjection = {
  name: "inbound_emails",
  version: 1,
  tables: {
    inbound_emails: teamResourceTable({
      columns: {
        ...mailboxColumns,
        received_for: { type: "jsonb", ...holds<string[]>() },
        message_id: { type: "text", nullable: true },
        subject: { type: "text" },
        raw_blob: { type: "text" },
        raw_size: { type: "bigint" },
        created_at: { type: "timestamptz" },
      },
    }),
    inbound_email_attachments: attachmentsTable({
      filename: { type: "text", nullable: true },
      disposition: { type: "text", nullable: true },
    }),
  },
  handlers: handlersOf<InboundEmailEvent>({
    InboundEmailReceived(data, context) {
      context.upsert("inbound_emails", {
        id: data.inboundId,
        team_id: data.teamId,
        ...mailboxRow(data),
        received_for: data.receivedFor,
        message_id: data.messageId,
        subject: data.subject,
        raw_blob: data.raw.blob,
        raw_size: data.raw.size,
        created_at: data.receivedAt,
      });
      upsertAttachments(context, "inbound_email_attachments", { emailId: data.inboundId, teamId: data.teamId }, data.attachments);
    },
  }),
} satisfies Projection;
