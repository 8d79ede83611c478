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
  // A stream's links chain from the head hash on its row; only the UPDATE's SET sees the row it locked,
  // so more than one event after an existing head goes through `append_set`, which chains them in steps.
  if ((typeof expected !== "bigint" && expected !== "no_stream") || count === 0) return undefined;
  if (typeof expected === "bigint" && count > 1) return undefined;
  const current = typeof expected === "bigint" ? expected : -1n;
  const claim =
    typeof expected === "bigint"
      ? sql`UPDATE eventstore.streams s SET revision = ${(current + 1n).toString()}::bigint,
                   hash = eventstore.link_hash(s.hash, s.stream_id, ${(current + 1n).toString()}::bigint, i.events->0->>'content')
              FROM input i
             WHERE s.stream_id = ${streamId} AND s.revision = ${current.toString()}::bigint RETURNING s.stream_id, ARRAY[s.hash] AS links`
      : sql`INSERT INTO eventstore.streams (stream_id, revision, hash)
            SELECT ${streamId}, ${count - 1}::bigint, l.links[${count}] FROM chain l
            ON CONFLICT (stream_id) DO NOTHING RETURNING stream_id, (SELECT l.links FROM chain l) AS links`;
  const chain =
    typeof expected === "bigint"
      ? sql``
      : sql`, chain AS (SELECT eventstore.chain_events(NULL, ${streamId}, -1, i.events) AS links FROM input i)`;
  const { rows } = await sql<{ seq: string; tx: string; count: string }>`
    WITH input AS (SELECT ${events}::jsonb AS events)${chain}, claimed AS (${claim}), inserted AS (
      INSERT INTO eventstore.events (stream_id, revision, event_id, type, data, metadata, hash)
      SELECT c.stream_id, ${current.toString()}::bigint + k.o, (k.value->>'id')::uuid, k.value->>'type', k.value->'data',
             coalesce(k.value->'metadata', '{}'::jsonb), c.links[k.o]
        FROM claimed c, input i, jsonb_array_elements(i.events) WITH ORDINALITY AS k(value, o)
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
