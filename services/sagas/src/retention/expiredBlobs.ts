import { sql } from "kysely";
import type { Database } from "@tidings/postgres";

/** Where sent and received mail expires: content created before each (null: kept for ever). */
export interface MailExpiry {
  email: Date | null;
  inbound: Date | null;
}

/**
 * The blobs still stored that only expired mail refers to: attachments and submitted messages of emails sent
 * before `email`, raw messages and attachments received before `inbound`. Blobs are stored by content, and the same bytes
 * (a terms-of-service PDF attached to every order) often belong to mail still kept as well, which would
 * lose them: those stay until the last of it expires.
 */
export async function expiredBlobs(database: Database, expiry: MailExpiry): Promise<string[]> {
  if (expiry.email === null && expiry.inbound === null) return [];
  // The blob table is made on a store's first use, the read models by the projector's first start.
  const { rows: present } = await sql<{ ready: boolean }>`
    SELECT to_regclass('blobs') IS NOT NULL AND to_regclass('email_attachments') IS NOT NULL
       AND to_regclass('inbound_email_attachments') IS NOT NULL AS ready`.execute(database.db);
  if (!present[0]?.ready) return [];
  const email = expiry.email?.toISOString() ?? null;
  const inbound = expiry.inbound?.toISOString() ?? null;
  const emailGone = sql`(${email}::timestamptz IS NOT NULL AND e.created_at < ${email}::timestamptz)`;
  const inboundGone = sql`(${inbound}::timestamptz IS NOT NULL AND i.created_at < ${inbound}::timestamptz)`;
  const referring = sql`
    SELECT a.blob, ${emailGone} AS gone FROM email_attachments a JOIN emails e ON e.id = a.email_id
    UNION ALL
    SELECT e.raw_blob, ${emailGone} FROM emails e WHERE e.raw_blob IS NOT NULL
    UNION ALL
    SELECT i.raw_blob, ${inboundGone} FROM inbound_emails i
    UNION ALL
    SELECT a.blob, ${inboundGone} FROM inbound_email_attachments a JOIN inbound_emails i ON i.id = a.email_id`;
  const { rows } = await sql<{ sha256: string }>`
    SELECT r.blob AS sha256 FROM (${referring}) AS r(blob, gone)
     GROUP BY r.blob HAVING bool_and(r.gone) AND EXISTS (SELECT 1 FROM blobs b WHERE b.sha256 = r.blob)`.execute(database.db);
  return rows.map((row) => row.sha256);
}
