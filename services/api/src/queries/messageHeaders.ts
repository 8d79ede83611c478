import { sql } from "kysely";

/** What a sent email (docs/wire-compatibility.md §6.1) and a received one (§6.3) both show of their message. */
export interface MessageHeaders {
  id: string;
  to: string[];
  from: string;
  created_at: string;
  subject: string;
  cc: string[] | null;
  bcc: string[] | null;
  reply_to: string[] | null;
}

/** The columns of the sent and the received emails' read models that hold the headers (with `created_at_wire`). */
export const headerColumns = ["id", "to_addresses", "from_address", "subject", "cc", "bcc", "reply_to"] as const;

export interface HeaderRow {
  id: string;
  to_addresses: string[];
  from_address: string;
  subject: string;
  cc: string[];
  bcc: string[];
  reply_to: string[];
  created_at_wire: string;
}

/** An empty address list shows as null, as Resend's objects do. */
const orNull = (list: string[]) => (list.length === 0 ? null : list);

export const messageHeaders = (row: HeaderRow): MessageHeaders => ({
  id: row.id,
  to: row.to_addresses,
  from: row.from_address,
  created_at: row.created_at_wire,
  subject: row.subject,
  cc: orNull(row.cc),
  bcc: orNull(row.bcc),
  reply_to: orNull(row.reply_to),
});

/** The columns of the sent and the received emails' attachment tables. */
export const attachmentColumns = [
  "id",
  "filename",
  "content_type",
  sql<string>`size::text`.as("size"),
  "content_id",
  "disposition",
  "blob",
] as const;
