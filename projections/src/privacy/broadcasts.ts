import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { mentions, withoutSubject, type SubjectMatch } from "./erasedSubject.js";
import type { Counts, ScrubTarget } from "./scrubTargets.js";

export const broadcastTables = ["broadcasts", "broadcast_recipients"] as const;

/**
 * The subject's rows in the team's broadcast ledgers read the placeholder for the address, as the plan's
 * opened events do; status and times stay, so the broadcast's counts do not change. A broadcast's own
 * sender and reply-to are replaced where they are the subject, though the events keep them in clear.
 * Recipients are found through the team's broadcasts (only a draft, which has none, can be deleted).
 */
export async function scrubSubjectBroadcasts(database: Database, target: ScrubTarget, subject: SubjectMatch): Promise<Counts> {
  const broadcasts = target.table("broadcasts");
  const recipients = target.table("broadcast_recipients");
  const planned = await sql`
    UPDATE ${sql.table(recipients)} SET email = ${subject.placeholder}
     WHERE broadcast_id IN (SELECT id FROM ${sql.table(broadcasts)} WHERE team_id = ${subject.teamId})
       AND team_id = ${subject.teamId} AND lower(email) = ${subject.address}`.execute(database.db);
  const { rows } = await sql<{ id: string; from_address: string | null; reply_to: string[] | null }>`
    SELECT id::text AS id, from_address, reply_to FROM ${sql.table(broadcasts)}
     WHERE team_id = ${subject.teamId} AND ${mentions(subject, sql`coalesce(from_address, '') || coalesce(reply_to::text, '')`)}`.execute(
    database.db,
  );
  const writes = rows
    .map((row) => ({
      id: row.id,
      from: row.from_address === null ? null : withoutSubject(subject, [row.from_address])[0]!,
      replyTo: row.reply_to === null ? null : withoutSubject(subject, row.reply_to),
      row,
    }))
    .filter((w) => w.from !== w.row.from_address || JSON.stringify(w.replyTo) !== JSON.stringify(w.row.reply_to));
  const senders = await sql`
    UPDATE ${sql.table(broadcasts)} AS b SET from_address = v.from_address, reply_to = v.reply_to::jsonb
      FROM unnest(${writes.map((w) => w.id)}::uuid[], ${writes.map((w) => w.from)}::text[],
                  ${writes.map((w) => (w.replyTo === null ? null : JSON.stringify(w.replyTo)))}::text[]) AS v(id, from_address, reply_to)
     WHERE b.id = v.id`.execute(database.db);
  return { [broadcasts]: Number(senders.numAffectedRows ?? 0), [recipients]: Number(planned.numAffectedRows ?? 0) };
}
