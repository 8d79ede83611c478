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
 * The stream row is the lock, as in `append_set`: after an existing head, the row is locked first (FOR
 * UPDATE waits for a writer of the same stream, then re-checks the revision on the row it committed and
 * chains the links from that row's head hash), then moved on; the INSERT … ON CONFLICT DO NOTHING waits for
 * one creating it. One row is locked, so no order is needed to avoid deadlocks.
 *
 * A delivered email's outcome (EmailSent and EmailDelivered, two events after its head) goes this way when
 * it is the only one on its round trip; outcomes answered together go through `append_set` as one set
 * (groupCommit.ts). A lone outcome through `append_set` cost PostgreSQL a fresh plan of each of the function's statements per email: a
 * lone 2-event append took 1.6–1.8 ms of wall time there and 0.8–0.9 ms here, and a 20,000-contact
 * bench/broadcast spent 2.57 ms of PostgreSQL CPU per email before and 2.15 after (docs/scaling.md §3).
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
  // Under READ COMMITTED, a row locked FOR UPDATE after another writer's commit is that writer's version,
  // its revision checked again and its links chained from its hash; the UPDATE then finds that version.
  const chain =
    typeof expected === "bigint"
      ? sql`, chain AS (
          SELECT s.stream_id, eventstore.chain_events(s.hash, s.stream_id, ${current.toString()}::bigint, i.events) AS links
            FROM eventstore.streams s, input i
           WHERE s.stream_id = ${streamId} AND s.revision = ${current.toString()}::bigint
             FOR UPDATE OF s)`
      : sql`, chain AS (SELECT ${streamId}::text AS stream_id, eventstore.chain_events(NULL, ${streamId}, -1, i.events) AS links FROM input i)`;
  const claim =
    typeof expected === "bigint"
      ? sql`UPDATE eventstore.streams s SET revision = ${(current + BigInt(count)).toString()}::bigint, hash = l.links[${count}]
              FROM chain l
             WHERE s.stream_id = l.stream_id RETURNING s.stream_id, l.links`
      : sql`INSERT INTO eventstore.streams (stream_id, revision, hash)
            SELECT l.stream_id, ${count - 1}::bigint, l.links[${count}] FROM chain l
            ON CONFLICT (stream_id) DO NOTHING RETURNING stream_id, (SELECT l.links FROM chain l) AS links`;
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
