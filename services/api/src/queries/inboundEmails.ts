import { sql, type InferResult } from "kysely";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";
import { attachmentColumns, headerColumns, messageHeaders, type MessageHeaders } from "./messageHeaders.js";

/** `InboundAttachment` (docs/wire-compatibility.md §6.3). */
export interface InboundAttachmentItem {
  id: string;
  filename: string | null;
  size: number;
  content_type: string;
  content_id: string | null;
  content_disposition: string | null;
}

export interface InboundListItem extends MessageHeaders {
  received_for: string[];
  message_id: string | null;
  attachments: InboundAttachmentItem[];
}

const attachmentRows = (database: Database) =>
  readModels(database)
    .selectFrom("inbound_email_attachments")
    .select([...attachmentColumns, "email_id"]);
export type InboundAttachmentRow = InferResult<ReturnType<typeof attachmentRows>>[number];

export const inboundAttachmentItem = (row: InboundAttachmentRow): InboundAttachmentItem => ({
  id: row.id,
  filename: row.filename,
  size: Number(row.size),
  content_type: row.content_type,
  content_id: row.content_id,
  content_disposition: row.disposition,
});

/** Reads of the `inbound_emails` read model: received mail, newest first. */
export function inboundEmailQueries(database: Database) {
  const base = (teamId: string) =>
    readModels(database)
      .selectFrom("inbound_emails")
      .where("team_id", "=", teamId)
      .select([...headerColumns, "received_for", "message_id", "raw_blob", wireTimestamp("created_at").as("created_at_wire")]);

  const attachmentsOf = async (emailIds: string[]) => {
    if (emailIds.length === 0) return new Map<string, InboundAttachmentRow[]>();
    const rows = await attachmentRows(database)
      // One array parameter, however long the page: `in (…)` takes a parameter per id, and stops at 65,535.
      .where(sql<boolean>`email_id = ANY(${emailIds}::uuid[])`)
      .orderBy("rank", "desc")
      .execute();
    const byEmail = new Map<string, InboundAttachmentRow[]>();
    for (const row of rows) byEmail.set(row.email_id, [...(byEmail.get(row.email_id) ?? []), row]);
    return byEmail;
  };

  type InboundRow = InferResult<ReturnType<typeof base>>[number];
  const toItem = (row: InboundRow, attachments: InboundAttachmentRow[]): InboundListItem => ({
    ...messageHeaders(row),
    received_for: row.received_for,
    message_id: row.message_id,
    attachments: attachments.map(inboundAttachmentItem),
  });

  return {
    async list(teamId: string, page: PageRequest): Promise<ListPage<InboundListItem>> {
      const rows = await listPage(base(teamId), page, { orderBy: ["created_at", "id"], whenLimitOmitted: "all" });
      const attachments = await attachmentsOf(rows.data.map((r) => r.id));
      return { ...rows, data: rows.data.map((row) => toItem(row, attachments.get(row.id) ?? [])) };
    },
    /** The email with its attachments' rows (for signed URLs) and where its raw bytes are. */
    async get(teamId: string, id: string) {
      const row = await base(teamId).where("id", "=", id).executeTakeFirst();
      if (!row) return undefined;
      const attachments = (await attachmentsOf([id])).get(id) ?? [];
      return { item: toItem(row, attachments), attachments, rawBlob: row.raw_blob };
    },
    /** A page of an email's attachments; undefined when the team has no such email. */
    async attachments(teamId: string, id: string, page: PageRequest): Promise<ListPage<InboundAttachmentRow> | undefined> {
      const email = await base(teamId).where("id", "=", id).executeTakeFirst();
      if (!email) return undefined;
      return listPage(attachmentRows(database).where("email_id", "=", id), page, { orderBy: ["rank", "id"], whenLimitOmitted: "all" });
    },
    /** What a signed URL names, whichever team: the raw message, or one attachment. */
    async rawBlob(id: string): Promise<string | undefined> {
      return (await readModels(database).selectFrom("inbound_emails").select("raw_blob").where("id", "=", id).executeTakeFirst())?.raw_blob;
    },
    attachmentForDownload(id: string, attachmentId: string): Promise<InboundAttachmentRow | undefined> {
      return attachmentRows(database).where("email_id", "=", id).where("id", "=", attachmentId).executeTakeFirst();
    },
  };
}
