import { sql } from "kysely";
import type { Database } from "@tidings/postgres";

/**
 * The blobs that are a subject's content (docs/privacy.md): the attachments and submitted messages of emails
 * sent to the address and the raw messages and attachments received from it. Read from the read models before they are
 * scrubbed, since the events name the address only sealed. A mailbox matches by its whole address, bare
 * or in angle brackets, so `bada@x.com` never matches `ada@x.com`.
 */
export async function blobsOfSubject(database: Database, teamId: string, address: string): Promise<string[]> {
  const exact = address.toLowerCase();
  const bracketed = `%<${exact.replace(/[\\%_]/g, (c) => `\\${c}`)}>`;
  const names = sql`(lower(a) = ${exact} OR lower(a) LIKE ${bracketed})`;
  const { rows } = await sql<{ blob: string }>`
    SELECT a.blob FROM email_attachments a JOIN emails e ON e.id = a.email_id
     WHERE e.team_id = ${teamId}
       AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(e.to_addresses || e.cc || e.bcc) AS r(a) WHERE ${names})
    UNION
    SELECT e.raw_blob FROM emails e
     WHERE e.team_id = ${teamId} AND e.raw_blob IS NOT NULL
       AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(e.to_addresses || e.cc || e.bcc) AS r(a) WHERE ${names})
    UNION
    SELECT i.raw_blob FROM inbound_emails i
     WHERE i.team_id = ${teamId} AND EXISTS (SELECT 1 FROM (VALUES (i.from_address)) AS r(a) WHERE ${names})
    UNION
    SELECT a.blob FROM inbound_email_attachments a JOIN inbound_emails i ON i.id = a.email_id
     WHERE i.team_id = ${teamId} AND EXISTS (SELECT 1 FROM (VALUES (i.from_address)) AS r(a) WHERE ${names})`.execute(database.db);
  return rows.map((r) => r.blob);
}
