import type { RecordedEvent } from "../port.js";
import { withoutData } from "../withheldData.js";

/** An `eventstore.events` row as the adapter selects it: int8 and xid8 columns as text. */
export interface EventRow {
  seq: string;
  tx_id: string;
  stream_id: string;
  revision: string;
  event_id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown> | null;
  created_at: Date | string;
  hash: string;
}

/**
 * The columns of `eventstore.events e` but its data. The text casts keep the column names, so an ORDER BY
 * must name `e.seq`, not `seq`, or it sorts the text.
 */
export const eventColumnsButData = `e.seq::text AS seq, e.tx_id::text AS tx_id, e.stream_id, e.revision::text AS revision,
  e.event_id::text AS event_id, e.type, e.metadata, e.created_at, e.hash`;

export const eventColumns = `${eventColumnsButData}, e.data`;

export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.type,
    data: row.data,
    metadata: row.metadata ?? {},
    streamId: row.stream_id,
    revision: BigInt(row.revision),
    position: { commit: BigInt(row.tx_id), prepare: BigInt(row.seq) },
    createdAt: row.created_at instanceof Date ? row.created_at : new Date(row.created_at),
    hash: row.hash,
  };
}

/** The event of a row read with `dataTypes` (allReader.ts): without its data where its type was not named. */
export const toRecordedEventOf = (dataTypes: ReadonlySet<string> | undefined) =>
  dataTypes === undefined
    ? toRecordedEvent
    : (row: EventRow) => (dataTypes.has(row.type) ? toRecordedEvent(row) : withoutData<RecordedEvent>(toRecordedEvent(row)));
