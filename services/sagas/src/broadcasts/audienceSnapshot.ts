import { sql } from "kysely";
import type { BroadcastContact, PlannedRecipient } from "@tidings/domain";
import type { Database } from "@tidings/postgres";

export interface SnapshotQuery {
  teamId: string;
  segmentId: string;
  topicId: string | null;
  /** Members added to the segment after this instant are not part of the snapshot. */
  asOf: string;
}

/**
 * The next `limit` eligible members of the segment after contact `afterContactId`, in contact id order
 * (docs/wire-compatibility.md §6.11 eligibility): not unsubscribed, not on the team's suppression list, and, with a topic,
 * whose own choice or else the topic's default is `opt_in`. Read from the audience read models: a lookup,
 * like the suppression list (docs/architecture.md §1), whose result the broadcast's stream then records as the snapshot.
 */
export async function eligibleMembers(
  database: Database,
  query: SnapshotQuery,
  afterContactId: string | null,
  limit: number,
): Promise<PlannedRecipient[]> {
  const { teamId, segmentId, topicId, asOf } = query;
  const topicFilter =
    topicId === null
      ? sql``
      : sql`AND coalesce((SELECT ct.subscription FROM contact_topics ct WHERE ct.contact_id = c.id AND ct.topic_id = ${topicId}),
                         (SELECT t.default_subscription FROM topics t WHERE t.id = ${topicId})) = 'opt_in'`;
  const { rows } = await sql<{ id: string; email: string }>`
    SELECT c.id, c.email
    FROM contact_segments cs JOIN contacts c ON c.id = cs.contact_id
    WHERE cs.segment_id = ${segmentId} AND c.team_id = ${teamId} AND cs.added_at <= ${asOf}::timestamptz
      AND cs.contact_id > ${afterContactId ?? "00000000-0000-0000-0000-000000000000"}::uuid
      AND NOT c.unsubscribed
      AND NOT EXISTS (SELECT 1 FROM suppressions s WHERE s.team_id = ${teamId} AND s.email = lower(c.email))
      ${topicFilter}
    ORDER BY cs.contact_id
    LIMIT ${limit}`.execute(database.db);
  return rows.map((r) => ({ contactId: r.id, email: r.email }));
}

/** The planned contacts as the read model holds them now, for personalisation; an erased contact is absent. */
export async function contactsById(database: Database, contactIds: string[]): Promise<Map<string, BroadcastContact>> {
  const { rows } = await sql<{
    id: string;
    email: string;
    first_name: string | null;
    last_name: string | null;
    properties: Record<string, string | number | null>;
  }>`
    SELECT id, email, first_name, last_name, properties FROM contacts WHERE id = ANY(${contactIds}::uuid[])`.execute(database.db);
  return new Map(
    rows.map((r) => [r.id, { email: r.email, firstName: r.first_name, lastName: r.last_name, properties: r.properties ?? {} }]),
  );
}

/** Each contact property's own `fallback_value`, by key. */
export async function propertyFallbacks(database: Database, teamId: string): Promise<Record<string, string | number | null>> {
  const { rows } = await sql<{ key: string; fallback_value: string | number | null }>`
    SELECT key, fallback_value FROM contact_properties WHERE team_id = ${teamId}`.execute(database.db);
  return Object.fromEntries(rows.map((r) => [r.key, r.fallback_value]));
}
