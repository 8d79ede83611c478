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

/**
 * The team's deliveries whose payload or an attempt's reply names the subject: the content key of such a
 * delivery is linked to the subject (`addressesIn`), so all of its content goes, the other attempts' too.
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
      const { rows: replies } = await sql<{ delivery_id: string; response: string }>`
        SELECT delivery_id::text, response FROM ${attempts}
         WHERE delivery_id = ANY(${rows.map((r) => r.id)}::uuid[]) AND strpos(lower(response), ${subject.address}) > 0`.execute(
        database.db,
      );
      const named = new Set(replies.filter((r) => namesSubject(subject, r.response)).map((r) => r.delivery_id));
      const linked = rows.filter((row) => named.has(row.id) || namesSubject(subject, row.data)).map((row) => row.id);
      if (linked.length > 0) addCounts(counts, await eraseDeliveries(database, target, linked));
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
