import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";

export interface EmailListItem {
  id: string;
  to: string[];
  from: string;
  created_at: string;
  subject: string;
  cc: string[] | null;
  bcc: string[] | null;
  reply_to: string[] | null;
  last_event: string;
  message_id: string;
  scheduled_at: string | null;
}

export interface EmailItem extends EmailListItem {
  object: "email";
  html: string | null;
  text: string | null;
  tags: { name: string; value: string }[];
}

interface EmailRow {
  id: string;
  to_addresses: string[];
  from_address: string;
  created_at_wire: string;
  subject: string;
  cc: string[];
  bcc: string[];
  reply_to: string[];
  last_event: string;
  scheduled_at_wire: string | null;
  html?: string | null;
  text?: string | null;
  tags?: { name: string; value: string }[];
}

const listed = ["id", "to_addresses", "from_address", "subject", "cc", "bcc", "reply_to", "last_event"] as const;

/**
 * Reads of the `emails` read model. `messageIdHost` is the host part of the Message-ID the delivery
 * saga composes (`<emailId@host>`, the PUBLIC_URL's host), so the id shown is the one receivers see.
 */
export function emailQueries(database: Database, messageIdHost: string) {
  const base = (teamId: string) =>
    database.db
      .selectFrom("emails")
      .where("team_id", "=", teamId)
      .select([...listed, wireTimestamp("created_at").as("created_at_wire"), wireTimestamp("scheduled_at").as("scheduled_at_wire")]);
  const orNull = (list: string[]) => (list.length === 0 ? null : list);
  const toItem = (row: EmailRow): EmailListItem => ({
    id: row.id,
    to: row.to_addresses,
    from: row.from_address,
    created_at: row.created_at_wire,
    subject: row.subject,
    cc: orNull(row.cc),
    bcc: orNull(row.bcc),
    reply_to: orNull(row.reply_to),
    last_event: row.last_event,
    // The Message-ID derives from the email id (`messageIdFor`), so it is known from the moment the email
    // is queued: Resend's document types it as a string that is never null.
    message_id: `<${row.id}@${messageIdHost}>`,
    scheduled_at: row.scheduled_at_wire,
  });

  return {
    async get(teamId: string, emailId: string): Promise<EmailItem | undefined> {
      const row = (await base(teamId).where("id", "=", emailId).select(["html", "text", "tags"]).executeTakeFirst()) as EmailRow | undefined;
      if (!row) return undefined;
      return { object: "email", ...toItem(row), html: row.html ?? null, text: row.text ?? null, tags: row.tags ?? [] };
    },
    list(teamId: string, page: PageRequest): Promise<ListPage<EmailListItem>> {
      return listPage<EmailRow, EmailListItem>(base(teamId) as never, page, { toItem, orderBy: ["created_at", "id"] });
    },
  };
}

export interface AttachmentRow {
  id: string;
  filename: string;
  content_type: string;
  size: string;
  content_id: string | null;
  disposition: "inline" | "attachment";
  blob: string;
}

const attachmentColumns = ["id", "filename", "content_type", sql<string>`size::text`.as("size"), "content_id", "disposition", "blob"] as const;

/** An email's attachments as a page; undefined when the team has no such email. */
export async function emailAttachments(database: Database, teamId: string, emailId: string, page: PageRequest): Promise<ListPage<AttachmentRow> | undefined> {
  const email = await database.db.selectFrom("emails").select("id").where("team_id", "=", teamId).where("id", "=", emailId).executeTakeFirst();
  if (!email) return undefined;
  const base = database.db.selectFrom("email_attachments").select([...attachmentColumns]).where("email_id", "=", emailId);
  return listPage<AttachmentRow>(base as never, page, { orderBy: ["rank", "id"], whenLimitOmitted: "all" });
}

/** What the signed download URL names: an attachment of an email, whichever team. */
export async function attachmentForDownload(database: Database, emailId: string, attachmentId: string): Promise<AttachmentRow | undefined> {
  return (await database.db
    .selectFrom("email_attachments")
    .select([...attachmentColumns])
    .where("email_id", "=", emailId)
    .where("id", "=", attachmentId)
    .executeTakeFirst()) as AttachmentRow | undefined;
}
