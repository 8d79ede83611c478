import { sql, type Kysely } from "kysely";
import type { DeadLetter } from "../port.js";
import { deadLetterHeaders } from "../delivery.js";

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

/**
 * Appends a message unless its msgId is already stored. Publishers take one transaction-level lock so
 * that sequence numbers commit in order: a consumer that has read up to seq N can then trust that no
 * message below N commits later (the same pitfall as the event store's, DESIGN §4). The lock is taken in
 * the CTE the insert reads from, hence before `nextval`, and held until the statement's commit.
 */
export async function insertMessage(
  db: Kysely<any>,
  message: { subject: string; data: unknown; msgId: string; headers: Record<string, string> },
): Promise<boolean> {
  const result = await sql<{ seq: string }>`
    WITH publish_lock AS (SELECT pg_advisory_xact_lock(hashtextextended('tidings_bus_publish', 0))),
    inserted AS (
      INSERT INTO bus_messages (subject, msg_id, data, headers)
      SELECT ${message.subject}, ${message.msgId}, ${JSON.stringify(message.data ?? null)}, ${JSON.stringify(message.headers)}::jsonb
      FROM publish_lock
      ON CONFLICT (msg_id) DO NOTHING
      RETURNING seq
    )
    SELECT seq::text AS seq, pg_notify(${busChannel}, ${message.subject}) FROM inserted`.execute(db);
  return result.rows.length > 0;
}

export async function registerConsumer(db: Kysely<any>, durable: string, filterSubject: string): Promise<void> {
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

/**
 * Claims up to `limit` deliveries for a durable: first the pending messages whose redelivery is due, then
 * messages past the durable's read position. Every claimed message gets a deadline `ackWaitMs` from now.
 * Rows and the read position are taken with SKIP LOCKED, so several processes share one durable.
 */
export async function claimDeliveries(
  db: Kysely<any>,
  consumer: { durable: string; pattern: string; ackWaitMs: number },
  limit: number,
): Promise<StoredDelivery[]> {
  const { durable, pattern, ackWaitMs } = consumer;
  return db.transaction().execute(async (trx) => {
    const redelivered = await sql<Row>`
      WITH due AS (
        SELECT seq FROM bus_pending WHERE durable = ${durable} AND due_at <= now()
        ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED
      ),
      bumped AS (
        UPDATE bus_pending p SET delivery_count = p.delivery_count + 1, due_at = now() + ${millis(ackWaitMs)}
        FROM due WHERE p.durable = ${durable} AND p.seq = due.seq
        RETURNING p.seq, p.delivery_count
      )
      SELECT m.seq::text AS seq, m.subject, m.msg_id, m.data, m.headers, b.delivery_count
      FROM bumped b JOIN bus_messages m ON m.seq = b.seq ORDER BY m.seq`.execute(trx);
    const remaining = limit - redelivered.rows.length;
    if (remaining <= 0) return redelivered.rows.map(toDelivery);

    const position = await sql<{ through: string }>`
      SELECT delivered_through::text AS through FROM bus_consumers WHERE durable = ${durable} FOR UPDATE SKIP LOCKED`.execute(trx);
    const through = position.rows[0]?.through;
    if (through === undefined) return redelivered.rows.map(toDelivery);

    // `head` comes from the same snapshot as the batch: every message up to it is visible (publishes commit
    // in order), so when the batch is short the read position can jump to it past non-matching messages.
    const fresh = await sql<Row & { head: string }>`
      WITH head AS (SELECT coalesce(max(seq), 0) AS seq FROM bus_messages),
      batch AS (
        SELECT seq FROM bus_messages
        WHERE seq > ${through} AND seq <= (SELECT seq FROM head) AND subject ~ ${pattern}
        ORDER BY seq LIMIT ${remaining}
      ),
      claimed AS (
        INSERT INTO bus_pending (durable, seq, delivery_count, due_at)
        SELECT ${durable}, seq, 1, now() + ${millis(ackWaitMs)} FROM batch
        RETURNING seq, delivery_count
      )
      SELECT (SELECT seq FROM head)::text AS head, m.seq::text AS seq, m.subject, m.msg_id, m.data, m.headers, c.delivery_count
      FROM (SELECT 1) AS one
      LEFT JOIN (claimed c JOIN bus_messages m ON m.seq = c.seq) ON true
      ORDER BY m.seq`.execute(trx);
    const claimed = fresh.rows.filter((row) => row.seq !== null);
    const head = fresh.rows[0]?.head ?? through;
    const next = claimed.length === remaining ? claimed[claimed.length - 1]!.seq : head;
    if (BigInt(next) > BigInt(through)) {
      await sql`UPDATE bus_consumers SET delivered_through = ${next} WHERE durable = ${durable}`.execute(trx);
    }
    return [...redelivered.rows, ...claimed].map(toDelivery);
  });
}

export async function ackDelivery(db: Kysely<any>, durable: string, seq: string): Promise<void> {
  await sql`DELETE FROM bus_pending WHERE durable = ${durable} AND seq = ${seq}`.execute(db);
}

/**
 * Moves the redelivery deadline of one delivery. Matching on the delivery count ignores a late call from
 * a handler whose delivery already expired and went to someone else.
 */
export async function delayDelivery(db: Kysely<any>, durable: string, delivery: StoredDelivery, delayMs: number): Promise<void> {
  await sql`
    UPDATE bus_pending SET due_at = now() + ${millis(delayMs)}
    WHERE durable = ${durable} AND seq = ${delivery.seq} AND delivery_count = ${delivery.deliveryCount}`.execute(db);
}

/** Milliseconds until the durable's next pending deadline, or undefined when nothing is pending. */
export async function msUntilNextDue(db: Kysely<any>, durable: string): Promise<number | undefined> {
  const result = await sql<{ ms: number | null }>`
    SELECT (extract(epoch FROM min(due_at) - now()) * 1000)::float8 AS ms FROM bus_pending WHERE durable = ${durable}`.execute(db);
  const ms = result.rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Number(ms);
}

export async function readDeadLetters(db: Kysely<any>, subject: string, limit: number): Promise<DeadLetter[]> {
  const result = await sql<{ data: string; headers: Record<string, string>; published_at: Date | string }>`
    SELECT data, headers, published_at FROM bus_messages WHERE subject = ${subject} ORDER BY seq LIMIT ${limit}`.execute(db);
  return result.rows.map((row) => ({
    subject: row.headers[deadLetterHeaders.originalSubject] ?? "",
    msgId: row.headers[deadLetterHeaders.msgId] ?? "",
    data: JSON.parse(row.data),
    deliveryCount: Number(row.headers[deadLetterHeaders.deliveryCount] ?? 0),
    error: row.headers[deadLetterHeaders.error] ?? "",
    deadAt: new Date(row.published_at),
  }));
}

/**
 * Deletes messages that no one needs: older than the dedup window, past every durable's read position
 * and pending for none; and anything older than `maxAgeMs`, read or not. Dead letters go only by age.
 * With no durable registered, only age applies, so a consumer started later still reads from the start.
 */
export async function pruneMessages(
  db: Kysely<any>,
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
