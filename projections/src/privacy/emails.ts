import { sql, type Kysely } from "kysely";
import type { Database } from "@tidings/postgres";
import { isErasedText } from "@tidings/privacy";
import { contentPlaceholder } from "./contentPlaceholder.js";
import { isSubjectMailbox, mentions, scrubbedMailboxes, type SubjectMatch } from "./erasedSubject.js";
import { byIdAfter, eachPage, newestFirstAfter, type TeamCursor } from "./pages.js";
import { addCounts, noRows, type Counts, type ScrubTarget } from "./scrubTargets.js";

/** The tables of sent mail: the emails, their attachments' metadata, their tracked links. */
export const emailTables = ["emails", "email_attachments", "email_link_clicks"] as const;

interface Mailboxes {
  from_address: string;
  to_addresses: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
}

/** What to write to one email: its mailboxes with the subject's replaced (null: as they are), and whether its content goes. */
interface EmailWrite {
  id: string;
  mailboxes: Mailboxes | null;
  eraseContent: boolean;
}

/** The emails' own rows: mailboxes where given, and the subject and bodies of those whose content goes. */
async function updateEmails(trx: Kysely<unknown>, target: ScrubTarget, writes: EmailWrite[]): Promise<number> {
  if (writes.length === 0) return 0;
  const column = (pick: (m: Mailboxes) => unknown) => writes.map((w) => (w.mailboxes ? JSON.stringify(pick(w.mailboxes)) : null));
  const result = await sql`
    UPDATE ${sql.table(target.table("emails"))} AS e SET
      from_address = COALESCE(v.from_address, e.from_address),
      to_addresses = COALESCE(v.to_addresses::jsonb, e.to_addresses),
      cc = COALESCE(v.cc::jsonb, e.cc),
      bcc = COALESCE(v.bcc::jsonb, e.bcc),
      reply_to = COALESCE(v.reply_to::jsonb, e.reply_to),
      subject = CASE WHEN v.erase THEN v.tag ELSE e.subject END,
      html = CASE WHEN v.erase AND e.html IS NOT NULL THEN v.tag ELSE e.html END,
      text = CASE WHEN v.erase AND e.text IS NOT NULL THEN v.tag ELSE e.text END
    FROM unnest(${writes.map((w) => w.id)}::uuid[], ${writes.map((w) => w.mailboxes?.from_address ?? null)}::text[],
                ${column((m) => m.to_addresses)}::text[], ${column((m) => m.cc)}::text[], ${column((m) => m.bcc)}::text[],
                ${column((m) => m.reply_to)}::text[], ${writes.map((w) => w.eraseContent)}::boolean[],
                ${writes.map((w) => contentPlaceholder("email", w.id))}::text[])
      AS v(id, from_address, to_addresses, cc, bcc, reply_to, erase, tag)
    WHERE e.id = v.id`.execute(trx);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Writes a page of emails in one transaction, so that an email and the rows of its attachments and links
 * never disagree about whether its content is gone: the content (subject, bodies, attachment names, the
 * links clicked) reads as the email's content placeholder.
 */
async function writeEmails(database: Database, target: ScrubTarget, writes: EmailWrite[], contentGone: string[]): Promise<Counts> {
  return database.db.transaction().execute(async (trx) => ({
    [target.table("emails")]: await updateEmails(trx, target, writes),
    ...(await eraseEmailParts(trx, target, contentGone)),
  }));
}

/** Attachment names and clicked links of emails whose content is gone; rows already erased are left, so a count says what changed. */
async function eraseEmailParts(trx: Kysely<unknown>, target: ScrubTarget, ids: string[]): Promise<Counts> {
  const t = target.table;
  const tags = ids.map((id) => contentPlaceholder("email", id));
  const attachments = await sql`
    UPDATE ${sql.table(t("email_attachments"))} AS a SET filename = v.tag
      FROM unnest(${ids}::uuid[], ${tags}::text[]) AS v(id, tag)
     WHERE a.email_id = v.id AND a.filename NOT LIKE 'erased:%'`.execute(trx);
  const links = await sql`
    UPDATE ${sql.table(t("email_link_clicks"))} AS c SET link = v.tag
      FROM unnest(${ids}::uuid[], ${tags}::text[]) AS v(id, tag)
     WHERE c.email_id = v.id AND c.link NOT LIKE 'erased:%'`.execute(trx);
  return {
    [t("email_attachments")]: Number(attachments.numAffectedRows ?? 0),
    [t("email_link_clicks")]: Number(links.numAffectedRows ?? 0),
  };
}

type EmailRow = TeamCursor & Mailboxes & { subject: string };

/**
 * The team's emails that name the subject: each mailbox of theirs becomes the placeholder, and an email
 * the subject received (to, cc or bcc: whose keys its content is keyed with) loses its content. The sender
 * and reply-to addresses are replaced too, though the events keep them in clear.
 */
export async function scrubSubjectEmails(database: Database, target: ScrubTarget, subject: SubjectMatch): Promise<Counts> {
  const counts = noRows(target, emailTables);
  await eachPage(
    async (after: EmailRow | undefined) => {
      const { after: next, page } = newestFirstAfter("r", after);
      const text = sql`r.from_address || r.to_addresses::text || r.cc::text || r.bcc::text || r.reply_to::text`;
      const { rows } = await sql<EmailRow>`
        SELECT r.id::text AS id, r.created_at::text AS created_at, r.from_address, r.to_addresses, r.cc, r.bcc, r.reply_to, r.subject
          FROM ${sql.table(target.table("emails"))} AS r
         WHERE r.team_id = ${subject.teamId} ${next} AND ${mentions(subject, text)} ${page}`.execute(database.db);
      return rows;
    },
    async (rows) => {
      const writes: EmailWrite[] = [];
      const received: string[] = [];
      for (const row of rows) {
        const mailboxes = scrubbedMailboxes(subject, row, ["to_addresses", "cc", "bcc", "reply_to"]);
        const recipient = [...row.to_addresses, ...row.cc, ...row.bcc].some((mailbox) => isSubjectMailbox(subject, mailbox));
        if (recipient) received.push(row.id);
        const eraseContent = recipient && !isErasedText(row.subject);
        if (mailboxes || eraseContent) writes.push({ id: row.id, mailboxes, eraseContent });
      }
      if (writes.length + received.length > 0) addCounts(counts, await writeEmails(database, target, writes, received));
    },
  );
  return counts;
}

/** Retention: the content of emails accepted before `before`, a page of the whole table at a time. Addresses stay. */
export async function expireEmails(database: Database, target: ScrubTarget, before: Date): Promise<Counts> {
  const counts = noRows(target, emailTables);
  await eachPage(
    async (after: { id: string; due: boolean } | undefined) => {
      const { after: next, page } = byIdAfter("r", after);
      const { rows } = await sql<{ id: string; due: boolean }>`
        SELECT r.id::text AS id, r.created_at < ${before.toISOString()}::timestamptz AND r.subject NOT LIKE 'erased:%' AS due
          FROM ${sql.table(target.table("emails"))} AS r WHERE true ${next} ${page}`.execute(database.db);
      return rows;
    },
    async (rows) => {
      const due = rows.filter((row) => row.due).map((row) => row.id);
      if (due.length === 0) return;
      const writes = due.map((id) => ({ id, mailboxes: null, eraseContent: true }));
      addCounts(counts, await writeEmails(database, target, writes, due));
    },
  );
  return counts;
}
