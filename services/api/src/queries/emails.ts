import { sql, type InferResult } from "kysely";
import type { EmailStatus } from "@tidings/domain";
import { likeLiteral, type Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { emailSearchText, readModels } from "@tidings/projections";
import { attachmentColumns, headerColumns, messageHeaders, type MessageHeaders } from "./messageHeaders.js";

export interface EmailListItem extends MessageHeaders {
  last_event: EmailStatus;
  message_id: string;
  scheduled_at: string | null;
}

export interface EmailItem extends EmailListItem {
  object: "email";
  html: string | null;
  text: string | null;
  tags: { name: string; value: string }[];
}

const listed = [...headerColumns, "last_event"] as const;

/** What GET /emails narrows its list by (docs/wire-compatibility.md §6.1, Tidings only); each is optional. */
export interface EmailListFilters {
  status?: EmailStatus | undefined;
  domain_id?: string | undefined;
  /** An ISO 8601 datetime, or a date (UTC midnight); inclusive. */
  created_after?: string | undefined;
  /** An ISO 8601 datetime, or a date (UTC midnight); exclusive. */
  created_before?: string | undefined;
  /** Part of a recipient's address or of the subject, in any case. */
  search?: string | undefined;
}

/**
 * Reads of the `emails` read model. `messageIdHost` is the host part of the Message-ID the delivery
 * saga composes (`<emailId@host>`, the PUBLIC_URL's host), so the id shown is the one receivers see.
 */
export function emailQueries(database: Database, messageIdHost: string) {
  const base = (teamId: string) =>
    readModels(database)
      .selectFrom("emails")
      .where("team_id", "=", teamId)
      .select([...listed, wireTimestamp("created_at").as("created_at_wire"), wireTimestamp("scheduled_at").as("scheduled_at_wire")]);
  type EmailRow = InferResult<ReturnType<typeof base>>[number];
  const toItem = (row: EmailRow): EmailListItem => ({
    ...messageHeaders(row),
    last_event: row.last_event,
    // The Message-ID derives from the email id (`messageIdFor`), so it is known from the moment the email
    // is queued: Resend's document types it as a string that is never null.
    message_id: `<${row.id}@${messageIdHost}>`,
    scheduled_at: row.scheduled_at_wire,
  });

  return {
    async get(teamId: string, emailId: string): Promise<EmailItem | undefined> {
      const row = await base(teamId).where("id", "=", emailId).select(["html", "text", "tags"]).executeTakeFirst();
      if (!row) return undefined;
      return { object: "email", ...toItem(row), html: row.html, text: row.text, tags: row.tags };
    },
    list(teamId: string, page: PageRequest & EmailListFilters): Promise<ListPage<EmailListItem>> {
      let rows = base(teamId);
      if (page.status) rows = rows.where("last_event", "=", page.status);
      if (page.domain_id) rows = rows.where("domain_id", "=", page.domain_id);
      if (page.created_after) rows = rows.where("created_at", ">=", sql<Date>`${page.created_after}::timestamptz`);
      if (page.created_before) rows = rows.where("created_at", "<", sql<Date>`${page.created_before}::timestamptz`);
      if (page.search) {
        const pattern = `%${likeLiteral(page.search)}%`;
        // The recipients are JSON arrays of mailboxes: their text holds every address.
        rows = rows.where(sql.raw<string>(emailSearchText), "ilike", pattern);
      }
      return listPage(rows, page, { toItem, orderBy: ["created_at", "id"] });
    },
  };
}

const attachmentsOf = (database: Database, emailId: string) =>
  readModels(database)
    .selectFrom("email_attachments")
    .select([...attachmentColumns])
    .where("email_id", "=", emailId);
export type AttachmentRow = InferResult<ReturnType<typeof attachmentsOf>>[number];

/** An email's attachments as a page; undefined when the team has no such email. */
export async function emailAttachments(
  database: Database,
  teamId: string,
  emailId: string,
  page: PageRequest,
): Promise<ListPage<AttachmentRow> | undefined> {
  const email = await readModels(database)
    .selectFrom("emails")
    .select("id")
    .where("team_id", "=", teamId)
    .where("id", "=", emailId)
    .executeTakeFirst();
  if (!email) return undefined;
  return listPage(attachmentsOf(database, emailId), page, { orderBy: ["rank", "id"], whenLimitOmitted: "all" });
}

/** What the signed download URL names: an attachment of an email, whichever team. */
export function attachmentForDownload(database: Database, emailId: string, attachmentId: string): Promise<AttachmentRow | undefined> {
  return attachmentsOf(database, emailId).where("id", "=", attachmentId).executeTakeFirst();
}
