import { sql, type Kysely } from "kysely";
import { contentHash } from "../integrity/hashes.js";
import { erasureRecord } from "../integrity/erasure.js";
import { ERASURE_STREAM } from "../integrity/records.js";

/**
 * Deletes a stream after recording what it held in the erasure stream, in one transaction: the stream
 * row is locked first, so no append slips in between the record and the deletion (docs/operations.md,
 * "Integrity"). A stream with no events leaves no record.
 */
export async function eraseStream(db: Kysely<unknown>, streamId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT 1 FROM eventstore.streams s WHERE s.stream_id = ${streamId} FOR UPDATE`.execute(trx);
    const { rows } = await sql<{ revision: string; tx_id: string; seq: string; hash: string }>`
      SELECT e.revision::text AS revision, e.tx_id::text AS tx_id, e.seq::text AS seq, e.hash
        FROM eventstore.events e WHERE e.stream_id = ${streamId} ORDER BY e.revision`.execute(trx);
    if (rows.length > 0) {
      const record = erasureRecord(
        streamId,
        rows.map((r) => ({ revision: BigInt(r.revision), position: { commit: BigInt(r.tx_id), prepare: BigInt(r.seq) }, hash: r.hash })),
      );
      const events = JSON.stringify([{ ...record, content: contentHash(record) }]);
      const payload = `[{"stream":${JSON.stringify(ERASURE_STREAM)},"expected":"any","events":${events}}]`;
      await sql`SELECT outcome FROM eventstore.append_set(${payload}::jsonb)`.execute(trx);
    }
    await sql`SELECT eventstore.delete_stream(${streamId})`.execute(trx);
  });
}

/** Every stream's head from its row, a page at a time, in stream order. */
export async function* streamHeads(db: Kysely<unknown>): AsyncGenerator<{ streamId: string; revision: bigint; hash: string }> {
  let after = "";
  for (;;) {
    const { rows } = await sql<{ stream_id: string; revision: string; hash: string | null }>`
      SELECT s.stream_id, s.revision::text AS revision, s.hash FROM eventstore.streams s
       WHERE s.stream_id COLLATE "C" > ${after} AND s.revision >= 0
       ORDER BY s.stream_id COLLATE "C" LIMIT 5000`.execute(db);
    for (const row of rows) yield { streamId: row.stream_id, revision: BigInt(row.revision), hash: row.hash ?? "" };
    if (rows.length < 5000) return;
    after = rows.at(-1)!.stream_id;
  }
}
