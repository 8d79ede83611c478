import type { BatchContext, ColumnDefinition, TableDefinition } from "../engine/projection.js";

interface Attachment {
  id: string;
  filename: string | null;
  contentType: string;
  size: number;
  contentId: string | null;
  disposition: string | null;
  blob: string;
}

/**
 * The table of an email's attachments: their metadata, the bytes being in the blob store. Sent and received
 * emails keep the same columns; only whether a `filename` and a `disposition` are sure to be there differs
 * (a send always has them, a received message may not), so each table says those two.
 */
export function attachmentsTable<Varying extends { filename: ColumnDefinition; disposition: ColumnDefinition }>(varying: Varying) {
  // Without the casts TypeScript would type both columns as any ColumnDefinition, and `ReadModels` could
  // not tell what a query reads from them.
  return {
    columns: {
      id: { type: "uuid" },
      /** The message's order, counted down (`upsertAttachments`). */
      rank: { type: "integer" },
      email_id: { type: "uuid" },
      team_id: { type: "uuid" },
      filename: varying.filename as Varying["filename"],
      content_type: { type: "text" },
      size: { type: "bigint" },
      content_id: { type: "text", nullable: true },
      disposition: varying.disposition as Varying["disposition"],
      blob: { type: "text" },
    },
    primaryKey: ["id"],
    indexes: { by_email: "(email_id, rank DESC, id DESC)" },
  } satisfies TableDefinition;
}

/**
 * An email's attachments as rows of `table`, in the message's order counted down: lists run newest first
 * (highest first), and ids are random, so they cannot keep the order themselves.
 */
export function upsertAttachments(
  context: BatchContext,
  table: string,
  email: { emailId: string; teamId: string },
  attachments: Attachment[],
): void {
  for (const [index, attachment] of attachments.entries())
    context.upsert(table, {
      id: attachment.id,
      rank: attachments.length - index,
      email_id: email.emailId,
      team_id: email.teamId,
      filename: attachment.filename,
      content_type: attachment.contentType,
      size: attachment.size,
      content_id: attachment.contentId,
      disposition: attachment.disposition,
      blob: attachment.blob,
    });
}
