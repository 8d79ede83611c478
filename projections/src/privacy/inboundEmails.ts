import { sql, type Kysely } from "kysely";
import type { Database } from "@tidings/postgres";
import { inboundEmailStream } from "@tidings/domain";
import { isErasedText } from "@tidings/privacy";
import { emailAddressIn } from "../readmodels/auditNames.js";
import { contentPlaceholder } from "./contentPlaceholder.js";
import { isSubjectMailbox, mentions, scrubbedMailboxes, type SubjectMatch } from "./erasedSubject.js";
import { byIdAfter, eachPage, newestFirstAfter, type TeamCursor } from "./pages.js";
import { addCounts, noRows, type Counts, type ScrubTarget } from "./scrubTargets.js";

/** The tables of received mail. The raw message is in the blob store, which these functions do not reach. */
export const inboundTables = ["inbound_emails", "inbound_email_attachments"] as const;

interface Mailboxes {
  from_address: string;
  to_addresses: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  received_for: string[];
}

interface InboundWrite {
  id: string;
  mailboxes: Mailboxes | null;
  eraseContent: boolean;
  /** The Message-ID, which the audit index keys the message's event by while it reads. */
  messageId: string | null;
}

/** The audit index keys a received message's event by its Message-ID, which is content: a rebuild would not make that row. */
async function forgetMessageIds(trx: Kysely<unknown>, target: ScrubTarget, writes: InboundWrite[]): Promise<number> {
  const keyed = writes.flatMap((w) => {
    const key = w.eraseContent && w.messageId !== null ? emailAddressIn(w.messageId) : undefined;
    return key ? [{ key, stream: inboundEmailStream(w.id) }] : [];
  });
  if (keyed.length === 0) return 0;
  const result = await sql`
    DELETE FROM ${sql.table(target.table("audit_refs"))} AS r
     USING unnest(${keyed.map((k) => k.key)}::text[], ${keyed.map((k) => k.stream)}::text[]) AS v(key, stream_id)
     WHERE r.key = v.key AND r.stream_id = v.stream_id AND r.type = 'InboundEmailReceived'`.execute(trx);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * A page of received emails in one transaction: mailboxes, then the content (subject, Message-ID,
 * attachment names), and the audit index's row keyed by an erased Message-ID.
 */
async function writeInbound(database: Database, target: ScrubTarget, writes: InboundWrite[]): Promise<Counts> {
  const t = target.table;
  const column = (pick: (m: Mailboxes) => unknown) => writes.map((w) => (w.mailboxes ? JSON.stringify(pick(w.mailboxes)) : null));
  const gone = writes.filter((w) => w.eraseContent).map((w) => w.id);
  const tag = (id: string) => contentPlaceholder("inbound", id);
  return database.db.transaction().execute(async (trx) => {
    const emails = await sql`
      UPDATE ${sql.table(t("inbound_emails"))} AS e SET
        from_address = COALESCE(v.from_address, e.from_address),
        to_addresses = COALESCE(v.to_addresses::jsonb, e.to_addresses),
        cc = COALESCE(v.cc::jsonb, e.cc),
        bcc = COALESCE(v.bcc::jsonb, e.bcc),
        reply_to = COALESCE(v.reply_to::jsonb, e.reply_to),
        received_for = COALESCE(v.received_for::jsonb, e.received_for),
        subject = CASE WHEN v.erase THEN v.tag ELSE e.subject END,
        message_id = CASE WHEN v.erase AND e.message_id IS NOT NULL THEN v.tag ELSE e.message_id END
      FROM unnest(${writes.map((w) => w.id)}::uuid[], ${writes.map((w) => w.mailboxes?.from_address ?? null)}::text[],
                  ${column((m) => m.to_addresses)}::text[], ${column((m) => m.cc)}::text[], ${column((m) => m.bcc)}::text[],
                  ${column((m) => m.reply_to)}::text[], ${column((m) => m.received_for)}::text[],
                  ${writes.map((w) => w.eraseContent)}::boolean[], ${writes.map((w) => tag(w.id))}::text[])
        AS v(id, from_address, to_addresses, cc, bcc, reply_to, received_for, erase, tag)
      WHERE e.id = v.id`.execute(trx);
    const attachments = await sql`
      UPDATE ${sql.table(t("inbound_email_attachments"))} AS a SET filename = v.tag
        FROM unnest(${gone}::uuid[], ${gone.map(tag)}::text[]) AS v(id, tag)
       WHERE a.email_id = v.id AND a.filename IS NOT NULL AND a.filename NOT LIKE 'erased:%'`.execute(trx);
    return {
      [t("inbound_emails")]: Number(emails.numAffectedRows ?? 0),
      [t("inbound_email_attachments")]: Number(attachments.numAffectedRows ?? 0),
      [t("audit_refs")]: await forgetMessageIds(trx, target, writes),
    };
  });
}

type InboundRow = TeamCursor & Mailboxes & { subject: string; message_id: string | null };

/**
 * The team's received emails that name the subject: each of their mailboxes becomes the placeholder, and
 * a message from or to the subject (its sender, a recipient or a reply-to: whose keys its content is keyed
 * with; a blind copy is not) loses its content. `received_for` is replaced too, though the events keep it in clear.
 */
export async function scrubSubjectInbound(database: Database, target: ScrubTarget, subject: SubjectMatch): Promise<Counts> {
  const counts = noRows(target, inboundTables);
  await eachPage(
    async (after: InboundRow | undefined) => {
      const { after: next, page } = newestFirstAfter("r", after);
      const text = sql`r.from_address || r.to_addresses::text || r.cc::text || r.bcc::text || r.reply_to::text || r.received_for::text`;
      const { rows } = await sql<InboundRow>`
        SELECT r.id::text AS id, r.created_at::text AS created_at, r.from_address, r.to_addresses, r.cc, r.bcc, r.reply_to,
               r.received_for, r.subject, r.message_id
          FROM ${sql.table(target.table("inbound_emails"))} AS r
         WHERE r.team_id = ${subject.teamId} ${next} AND ${mentions(subject, text)} ${page}`.execute(database.db);
      return rows;
    },
    async (rows) => {
      const writes: InboundWrite[] = [];
      for (const row of rows) {
        const mailboxes = scrubbedMailboxes(subject, row, ["to_addresses", "cc", "bcc", "reply_to", "received_for"]);
        const linked = [row.from_address, ...row.to_addresses, ...row.cc, ...row.reply_to].some((m) => isSubjectMailbox(subject, m));
        const eraseContent = linked && !isErasedText(row.subject);
        if (mailboxes || eraseContent) writes.push({ id: row.id, mailboxes, eraseContent, messageId: row.message_id });
      }
      if (writes.length > 0) addCounts(counts, await writeInbound(database, target, writes));
    },
  );
  return counts;
}

/** Retention: the content of emails received before `before`, a page of the whole table at a time. Addresses stay. */
export async function expireInbound(database: Database, target: ScrubTarget, before: Date): Promise<Counts> {
  const counts = noRows(target, inboundTables);
  await eachPage(
    async (after: { id: string; due: boolean; message_id: string | null } | undefined) => {
      const { after: next, page } = byIdAfter("r", after);
      const { rows } = await sql<{ id: string; due: boolean; message_id: string | null }>`
        SELECT r.id::text AS id, r.created_at < ${before.toISOString()}::timestamptz AND r.subject NOT LIKE 'erased:%' AS due, r.message_id
          FROM ${sql.table(target.table("inbound_emails"))} AS r WHERE true ${next} ${page}`.execute(database.db);
      return rows;
    },
    async (rows) => {
      const writes = rows
        .filter((row) => row.due)
        .map((row) => ({ id: row.id, mailboxes: null, eraseContent: true, messageId: row.message_id }));
      if (writes.length > 0) addCounts(counts, await writeInbound(database, target, writes));
    },
  );
  return counts;
}
