import { sql, type Kysely } from "kysely";
import { grouped, rowsByInput, type Grouping } from "@tidings/core";
import type { RecordedEvent } from "../port.js";
import { eventColumns, toRecordedEvent, type EventRow } from "./recordedEvent.js";

interface Read {
  streamId: string;
  /** null: the whole stream. */
  maxCount: number | null;
}

type Row = EventRow & { ord: string };

/**
 * Group reads for this process's reads of a stream from one end: from the start, the ones a decider folds,
 * a saga loads, a webhook payload is built from; from the end, a reservation's current owner. Reads that
 * arrive while every round trip is busy go together (`grouped`), as one statement over all their streams:
 * under load most reads of the sagas wait anyway, so a burst of a few hundred costs one statement and one
 * socket write instead of a few hundred, each of which PostgreSQL parses, plans and answers on its own. A
 * read sees every append that committed before its statement began, as alone.
 */
export function groupRead(
  db: Kysely<unknown>,
  options: Grouping & { backwards: boolean },
): (streamId: string, maxCount?: number) => Promise<RecordedEvent[]> {
  const order = sql.raw(options.backwards ? "DESC" : "ASC");

  const readOne = async ({ streamId, maxCount }: Read): Promise<Row[]> => {
    const { rows } = await sql<Row>`
      SELECT 0 AS ord, ${sql.raw(eventColumns)} FROM eventstore.events e
       WHERE e.stream_id = ${streamId}
       ORDER BY e.revision ${order}
       LIMIT ${maxCount}`.execute(db);
    return rows;
  };

  /** LIMIT NULL is no limit; `ord` is the read's index in the set (ordinality counts from 1). */
  const readSet = async (reads: Read[]): Promise<Row[]> => {
    const { rows } = await sql<Row>`
      SELECT (r.ord - 1)::int AS ord, e.* FROM unnest(${reads.map((r) => r.streamId)}::text[], ${reads.map((r) => r.maxCount)}::int[])
        WITH ORDINALITY AS r(stream_id, max_count, ord)
      CROSS JOIN LATERAL (
        SELECT e.revision AS at_revision, ${sql.raw(eventColumns)} FROM eventstore.events e
         WHERE e.stream_id = r.stream_id
         ORDER BY e.revision ${order}
         LIMIT r.max_count) e
      ORDER BY r.ord, e.at_revision ${order}`.execute(db);
    return rows;
  };

  const read = grouped(async (reads: Read[]) => {
    const rows = reads.length === 1 ? await readOne(reads[0]!) : await readSet(reads);
    return rowsByInput(reads.length, rows, (row) => Number(row.ord), toRecordedEvent);
  }, options);
  return (streamId, maxCount) => read({ streamId, maxCount: maxCount ?? null });
}
