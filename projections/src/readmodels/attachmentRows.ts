import type { BatchContext } from "../engine/projection.js";

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
 * An email's attachments as rows of `table`, in the message's order counted down: lists run newest first
 * (highest first), and ids are random, so they cannot keep the order themselves.
 */
export function upsertAttachments(context: BatchContext, table: string, email: { emailId: string; teamId: string }, attachments: Attachment[]): void {
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
