import { sql, type Kysely } from "kysely";
import type { AppendResult, ExpectedRevision } from "../port.js";

/**
 * An append to one stream that goes alone, written by one plain statement when it simply fits: the stream
 * is at the expected revision (or absent, for `no_stream`). `append_set` costs PostgreSQL about 0.66 ms of
 * CPU for a set of one, nearly all of it fixed PL/pgSQL overhead; this statement about a quarter of that
 * (bench/floors and bench/eventstore-append measure both). Whatever else (a conflict, an
 * idempotent retry, `any`, `stream_exists`, no events) writes nothing here and answers undefined, and the
 * caller asks `append_set`, which tells those apart.
 *
 * The stream row is the lock, as in `append_set`: the UPDATE waits for a writer of the same stream and
 * then re-checks the revision on the row it committed; the INSERT … ON CONFLICT DO NOTHING waits for one
 * creating it. One row is locked, so no order is needed to avoid deadlocks.
 */
export async function appendAlone(
  db: Kysely<unknown>,
  streamId: string,
  expected: ExpectedRevision,
  events: string,
  count: number,
): Promise<AppendResult | undefined> {
  if ((typeof expected !== "bigint" && expected !== "no_stream") || count === 0) return undefined;
  const current = typeof expected === "bigint" ? expected : -1n;
  const claim =
    typeof expected === "bigint"
      ? sql`UPDATE eventstore.streams s SET revision = ${(current + BigInt(count)).toString()}::bigint
             WHERE s.stream_id = ${streamId} AND s.revision = ${current.toString()}::bigint RETURNING s.stream_id`
      : sql`INSERT INTO eventstore.streams (stream_id, revision) VALUES (${streamId}, ${count - 1}::bigint)
             ON CONFLICT (stream_id) DO NOTHING RETURNING stream_id`;
  const { rows } = await sql<{ seq: string; tx: string; count: string }>`
    WITH claimed AS (${claim}), inserted AS (
      INSERT INTO eventstore.events (stream_id, revision, event_id, type, data, metadata)
      SELECT c.stream_id, ${current.toString()}::bigint + k.o, (k.value->>'id')::uuid, k.value->>'type', k.value->'data',
             coalesce(k.value->'metadata', '{}'::jsonb)
        FROM claimed c, jsonb_array_elements(${events}::jsonb) WITH ORDINALITY AS k(value, o)
       ORDER BY k.o
      RETURNING seq
    )
    SELECT max(i.seq)::text AS seq, count(*)::text AS count, pg_current_xact_id()::text AS tx,
           pg_notify('eventstore_appended', pg_current_xact_id()::text) AS notified
      FROM inserted i HAVING count(*) > 0`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return { nextExpectedRevision: current + BigInt(row.count), position: { commit: BigInt(row.tx), prepare: BigInt(row.seq) } };
}
