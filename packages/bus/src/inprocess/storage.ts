import { sql, type Kysely } from "kysely";
import type { DeadLetter } from "../port.js";
import { storedDeadLetter } from "../delivery.js";
import { subjectPattern } from "../subject.js";

/** The NOTIFY channel that wakes consumers in other processes; the payload is the published subject. */
export const busChannel = "tidings_bus";

export interface StoredDelivery {
  seq: string;
  subject: string;
  msgId: string;
  data: unknown;
  headers: Record<string, string>;
  deliveryCount: number;
}

const millis = (ms: number) => sql`(${ms}::float8 * interval '1 millisecond')`;

export interface MessageToInsert {
  subject: string;
  data: unknown;
  msgId: string;
  headers: Record<string, string>;
}

/**
 * Appends messages in the given order, skipping any whose msgId is already stored, and returns the
 * distinct subjects that got a new message. Publishers take one transaction-level lock so that sequence
 * numbers commit in order: a consumer that has read up to seq N can then trust that no message below N
 * commits later (the event store's pitfall, docs/architecture.md §4). The lock is taken in the CTE the insert reads
 * from, hence before any `nextval`, and held until the statement commits.
 */
export async function insertMessages(db: Kysely<unknown>, messages: MessageToInsert[]): Promise<string[]> {
  const rows = messages.map((m) => ({ subject: m.subject, msg_id: m.msgId, data: JSON.stringify(m.data ?? null), headers: m.headers }));
  const result = await sql<{ subject: string }>`
    WITH publish_lock AS (SELECT pg_advisory_xact_lock(hashtextextended('tidings_bus_publish', 0))),
    inserted AS (
      INSERT INTO bus_messages (subject, msg_id, data, headers)
      SELECT e.value->>'subject', e.value->>'msg_id', e.value->>'data', e.value->'headers'
      FROM publish_lock, jsonb_array_elements(${JSON.stringify(rows)}::jsonb) WITH ORDINALITY AS e(value, ord)
      ORDER BY e.ord
      ON CONFLICT (msg_id) DO NOTHING
      RETURNING subject
    )
    SELECT subject, pg_notify(${busChannel}, subject) FROM (SELECT DISTINCT subject FROM inserted) AS s`.execute(db);
  return result.rows.map((row) => row.subject);
}

export async function registerConsumer(db: Kysely<unknown>, durable: string, filterSubject: string): Promise<void> {
  await sql`
    INSERT INTO bus_consumers (durable, filter_subject) VALUES (${durable}, ${filterSubject})
    ON CONFLICT (durable) DO UPDATE SET filter_subject = EXCLUDED.filter_subject`.execute(db);
}

interface Row {
  seq: string;
  subject: string;
  msg_id: string;
  data: string;
  headers: Record<string, string>;
  delivery_count: number;
}

const toDelivery = (row: Row): StoredDelivery => ({
  seq: row.seq,
  subject: row.subject,
  msgId: row.msg_id,
  data: JSON.parse(row.data),
  headers: row.headers,
  deliveryCount: Number(row.delivery_count),
});

export interface Claim {
  deliveries: StoredDelivery[];
  /** Milliseconds until the next delivery of this durable that is not yet due, if any. */
  nextDueInMs: number | undefined;
  /** Unread messages remain past the scanned window: claim again without waiting. */
  behind: boolean;
}

/**
 * How many messages past its read position one claim looks at. The planner cannot see the position (it
 * is read in the same statement), so it may scan the whole range and sort; the window keeps that cheap
 * when a durable has a backlog.
 */
const scanWindow = 256;

/**
 * Claims up to `limit` deliveries for a durable in one statement: first pending messages whose redelivery
 * is due, then messages past the durable's read position. Each claimed message is due again `ackWaitMs`
 * from now. Pending rows and the read position are locked with SKIP LOCKED, so several processes can
 * share a durable: one that finds the position locked just claims nothing new this time.
 *
 * `head` comes from the statement's snapshot, and every message up to it is visible (publishes commit in
 * order), so when the batch comes back short the read position may jump to the end of the window, past
 * messages that do not match the filter.
 */
export async function claimDeliveries(
  db: Kysely<unknown>,
  consumer: { durable: string; pattern: string; ackWaitMs: number },
  limit: number,
): Promise<Claim> {
  const { durable, pattern, ackWaitMs } = consumer;
  const result = await sql<Row & { next_due_ms: number | null; behind: boolean | null }>`
    WITH position AS (
      SELECT delivered_through AS seq FROM bus_consumers WHERE durable = ${durable} FOR UPDATE SKIP LOCKED
    ),
    due AS (
      SELECT seq FROM bus_pending WHERE durable = ${durable} AND due_at <= now()
      ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ),
    bumped AS (
      UPDATE bus_pending p SET delivery_count = p.delivery_count + 1, due_at = now() + ${millis(ackWaitMs)}
      FROM due WHERE p.durable = ${durable} AND p.seq = due.seq
      RETURNING p.seq, p.delivery_count
    ),
    head AS (SELECT coalesce(max(seq), 0) AS seq FROM bus_messages),
    window_end AS (SELECT LEAST((SELECT seq FROM head), (SELECT seq FROM position) + ${scanWindow}) AS seq),
    room AS (SELECT ${limit}::int - (SELECT count(*) FROM due)::int AS n),
    batch AS (
      SELECT m.seq FROM bus_messages m
      WHERE m.seq > (SELECT seq FROM position) AND m.seq <= (SELECT seq FROM window_end) AND m.subject ~ ${pattern}
      ORDER BY m.seq LIMIT (SELECT n FROM room)
    ),
    claimed AS (
      INSERT INTO bus_pending (durable, seq, delivery_count, due_at)
      SELECT ${durable}, seq, 1, now() + ${millis(ackWaitMs)} FROM batch
      RETURNING seq, delivery_count
    ),
    target AS (
      SELECT CASE
        WHEN (SELECT n FROM room) <= 0 THEN position.seq
        WHEN (SELECT count(*) FROM batch) >= (SELECT n FROM room) THEN (SELECT max(seq) FROM batch)
        ELSE (SELECT seq FROM window_end)
      END AS seq
      FROM position
    ),
    moved AS (
      UPDATE bus_consumers c SET delivered_through = target.seq
      FROM target, position WHERE c.durable = ${durable} AND target.seq > position.seq
    )
    SELECT m.seq::text AS seq, m.subject, m.msg_id, m.data, m.headers, d.delivery_count, next_due.ms AS next_due_ms,
           (SELECT seq FROM target) < (SELECT seq FROM head) AS behind
    FROM (
      SELECT (extract(epoch FROM min(due_at) - now()) * 1000)::float8 AS ms
      FROM bus_pending WHERE durable = ${durable} AND due_at > now()
    ) AS next_due
    LEFT JOIN (
      (SELECT seq, delivery_count FROM bumped UNION ALL SELECT seq, delivery_count FROM claimed) d
      JOIN bus_messages m ON m.seq = d.seq
    ) ON true
    ORDER BY m.seq`.execute(db);
  const first = result.rows[0];
  return {
    deliveries: result.rows.filter((row) => row.seq !== null).map(toDelivery),
    nextDueInMs: first?.next_due_ms === null || first?.next_due_ms === undefined ? undefined : Number(first.next_due_ms),
    behind: first?.behind === true,
  };
}

export async function ackDelivery(db: Kysely<unknown>, durable: string, seq: string): Promise<void> {
  await sql`DELETE FROM bus_pending WHERE durable = ${durable} AND seq = ${seq}`.execute(db);
}

/**
 * Moves the redelivery deadline of one delivery. Matching on the delivery count ignores a late call from
 * a handler whose delivery already expired and went to someone else.
 */
export async function delayDelivery(db: Kysely<unknown>, durable: string, delivery: StoredDelivery, delayMs: number): Promise<void> {
  await sql`
    UPDATE bus_pending SET due_at = now() + ${millis(delayMs)}
    WHERE durable = ${durable} AND seq = ${delivery.seq} AND delivery_count = ${delivery.deliveryCount}`.execute(db);
}

/** A durable's unacked messages: those claimed and not acked, and those past its read position that match its filter. */
export async function countPending(db: Kysely<unknown>, durable: string): Promise<number> {
  const consumer = await sql<{ filter_subject: string }>`SELECT filter_subject FROM bus_consumers WHERE durable = ${durable}`.execute(db);
  const filter = consumer.rows[0]?.filter_subject;
  if (filter === undefined) return 0;
  const { rows } = await sql<{ n: string }>`
    SELECT (SELECT count(*) FROM bus_pending WHERE durable = ${durable})
         + (SELECT count(*) FROM bus_messages m, bus_consumers c
            WHERE c.durable = ${durable} AND m.seq > c.delivered_through AND m.subject ~ ${subjectPattern(filter)}) AS n`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

type DeadLetterRow = { seq: string; data: string; headers: Record<string, string>; published_at: Date | string };

const toDeadLetter = (row: DeadLetterRow) =>
  storedDeadLetter({ id: row.seq, headers: row.headers, data: JSON.parse(row.data), deadAt: new Date(row.published_at) });

export async function readDeadLetters(db: Kysely<unknown>, subject: string, limit: number): Promise<DeadLetter[]> {
  const result = await sql<DeadLetterRow>`
    SELECT seq::text AS seq, data, headers, published_at FROM bus_messages
    WHERE subject = ${subject} AND subject LIKE 'deadletter.%' -- spelled as in the partial index, so the planner uses it
    ORDER BY seq LIMIT ${limit}`.execute(db);
  return result.rows.map(toDeadLetter);
}

/** A sequence number as the table takes it, or undefined for an id that cannot be one (so no letter has it). */
const seqOf = (id: string) => (/^[1-9][0-9]{0,17}$/.test(id) ? id : undefined);

export async function readDeadLetter(db: Kysely<unknown>, subject: string, id: string): Promise<DeadLetter | undefined> {
  const seq = seqOf(id);
  if (seq === undefined) return undefined;
  const result = await sql<DeadLetterRow>`
    SELECT seq::text AS seq, data, headers, published_at FROM bus_messages WHERE seq = ${seq}::bigint AND subject = ${subject}`.execute(db);
  const row = result.rows[0];
  return row && toDeadLetter(row);
}

export async function deleteDeadLetter(db: Kysely<unknown>, subject: string, id: string): Promise<boolean> {
  const seq = seqOf(id);
  if (seq === undefined) return false;
  const result = await sql`DELETE FROM bus_messages WHERE seq = ${seq}::bigint AND subject = ${subject}`.execute(db);
  return Number(result.numAffectedRows ?? 0n) > 0;
}

/**
 * Deletes messages that no one needs: older than the dedup window, past every durable's read position
 * and pending for none; and anything older than `maxAgeMs`, read or not. Dead letters go only by age.
 * With no durable registered, only age applies, so a consumer started later still reads from the start.
 */
export async function pruneMessages(
  db: Kysely<unknown>,
  retention: { dedupWindowMs: number; maxAgeMs: number; deadLetterPrefix: string },
): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await sql`
      DELETE FROM bus_messages WHERE seq IN (
        SELECT m.seq FROM bus_messages m
        WHERE m.published_at < now() - ${millis(retention.maxAgeMs)}
           OR (m.published_at < now() - ${millis(retention.dedupWindowMs)}
               AND m.subject NOT LIKE ${`${retention.deadLetterPrefix}%`}
               AND m.seq <= (SELECT min(delivered_through) FROM bus_consumers)
               AND NOT EXISTS (SELECT 1 FROM bus_pending p WHERE p.seq = m.seq))
        ORDER BY m.seq LIMIT 5000
      )`.execute(db);
    const deleted = Number(result.numAffectedRows ?? 0n);
    total += deleted;
    if (deleted < 5000) return total;
  }
}
