import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { contentPlaceholder } from "./contentPlaceholder.js";
import { mentions, namesSubject, type SubjectMatch } from "./erasedSubject.js";
import { byIdAfter, eachPage, newestFirstAfter, type TeamCursor } from "./pages.js";
import { addCounts, noRows, type Counts, type ScrubTarget } from "./scrubTargets.js";

/** A webhook's deliveries and their attempts (`GET /webhooks/:id/events`). */
export const webhookTables = ["webhook_deliveries", "webhook_attempts"] as const;

/**
 * The content of these deliveries goes, in one transaction: the payload's `data` reads `{}` (it is sealed
 * whole, an object), each attempt's reply the delivery's content placeholder. Type and time stay.
 */
async function eraseDeliveries(database: Database, target: ScrubTarget, ids: string[]): Promise<Counts> {
  const t = target.table;
  return database.db.transaction().execute(async (trx) => {
    const deliveries = await sql`
      UPDATE ${sql.table(t("webhook_deliveries"))} SET payload = jsonb_set(payload, '{data}', '{}'::jsonb)
       WHERE id = ANY(${ids}::uuid[]) AND payload->'data' IS DISTINCT FROM '{}'::jsonb`.execute(trx);
    const attempts = await sql`
      UPDATE ${sql.table(t("webhook_attempts"))} AS a SET response = v.tag
        FROM unnest(${ids}::uuid[], ${ids.map((id) => contentPlaceholder("webhook", id))}::text[]) AS v(id, tag)
       WHERE a.delivery_id = v.id AND a.response NOT LIKE 'erased:%'`.execute(trx);
    return {
      [t("webhook_deliveries")]: Number(deliveries.numAffectedRows ?? 0),
      [t("webhook_attempts")]: Number(attempts.numAffectedRows ?? 0),
    };
  });
}

type DeliveryRow = TeamCursor & { data: unknown };

/** The replies of a delivery from its attempt `from` on: what a subject first named in that reply is keyed into. */
async function eraseRepliesFrom(database: Database, target: ScrubTarget, deliveryId: string, from: number): Promise<Counts> {
  const result = await sql`
    UPDATE ${sql.table(target.table("webhook_attempts"))} SET response = ${contentPlaceholder("webhook", deliveryId)}
     WHERE delivery_id = ${deliveryId} AND attempt >= ${from} AND response NOT LIKE 'erased:%'`.execute(database.db);
  return { [target.table("webhook_attempts")]: Number(result.numAffectedRows ?? 0) };
}

/**
 * The team's deliveries whose payload or an attempt's reply names the subject (`addressesIn`), scrubbed as
 * the events now open: a reply is keyed with the subjects of the payload and of every earlier reply
 * (`Sealing.streamContent`), so a payload naming the subject takes the delivery's whole content, and a
 * reply naming them takes itself and the replies after it.
 */
export async function scrubSubjectWebhooks(database: Database, target: ScrubTarget, subject: SubjectMatch): Promise<Counts> {
  const counts = noRows(target, webhookTables);
  const attempts = sql.table(target.table("webhook_attempts"));
  await eachPage(
    async (after: DeliveryRow | undefined) => {
      const { after: next, page } = newestFirstAfter("r", after);
      const { rows } = await sql<DeliveryRow>`
        SELECT r.id::text AS id, r.created_at::text AS created_at, r.payload->'data' AS data
          FROM ${sql.table(target.table("webhook_deliveries"))} AS r
         WHERE r.team_id = ${subject.teamId} ${next}
           AND (${mentions(subject, sql`(r.payload->'data')::text`)}
                OR EXISTS (SELECT 1 FROM ${attempts} AS a WHERE a.delivery_id = r.id AND strpos(lower(a.response), ${subject.address}) > 0))
         ${page}`.execute(database.db);
      return rows;
    },
    async (rows) => {
      const { rows: replies } = await sql<{ delivery_id: string; attempt: number; response: string }>`
        SELECT delivery_id::text, attempt, response FROM ${attempts}
         WHERE delivery_id = ANY(${rows.map((r) => r.id)}::uuid[]) AND strpos(lower(response), ${subject.address}) > 0`.execute(
        database.db,
      );
      const byPayload = rows.filter((row) => namesSubject(subject, row.data)).map((row) => row.id);
      if (byPayload.length > 0) addCounts(counts, await eraseDeliveries(database, target, byPayload));
      const firstNaming = new Map<string, number>();
      for (const reply of replies) {
        if (byPayload.includes(reply.delivery_id) || !namesSubject(subject, reply.response)) continue;
        firstNaming.set(reply.delivery_id, Math.min(reply.attempt, firstNaming.get(reply.delivery_id) ?? reply.attempt));
      }
      for (const [deliveryId, from] of firstNaming) addCounts(counts, await eraseRepliesFrom(database, target, deliveryId, from));
    },
  );
  return counts;
}

/** Retention: the content of deliveries made before `before`, a page of the whole table at a time. */
export async function expireWebhooks(database: Database, target: ScrubTarget, before: Date): Promise<Counts> {
  const counts = noRows(target, webhookTables);
  const attempts = sql.table(target.table("webhook_attempts"));
  await eachPage(
    async (after: { id: string; due: boolean } | undefined) => {
      const { after: next, page } = byIdAfter("r", after);
      const { rows } = await sql<{ id: string; due: boolean }>`
        SELECT r.id::text AS id, r.created_at < ${before.toISOString()}::timestamptz
               AND (r.payload->'data' IS DISTINCT FROM '{}'::jsonb
                    OR EXISTS (SELECT 1 FROM ${attempts} AS a WHERE a.delivery_id = r.id AND a.response NOT LIKE 'erased:%')) AS due
          FROM ${sql.table(target.table("webhook_deliveries"))} AS r WHERE true ${next} ${page}`.execute(database.db);
      return rows;
    },
    async (rows) => {
      const due = rows.filter((row) => row.due).map((row) => row.id);
      if (due.length > 0) addCounts(counts, await eraseDeliveries(database, target, due));
    },
  );
  return counts;
}
