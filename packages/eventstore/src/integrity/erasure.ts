import { randomUUID } from "node:crypto";
import { formatPosition, type EventToAppend, type Position } from "../port.js";
import { ERASED, storeRecordMetadata, type ErasureData } from "./records.js";

/**
 * The record appended to the erasure stream before a stream is deleted (docs/operations.md, "Integrity"):
 * each event's revision, position and hash, no content. With it a verifier walks `$all` as it was, and a
 * reader finds when a stream went and what it held, by hash.
 */
export function erasureRecord(
  streamId: string,
  events: { revision: bigint; position: Position; hash?: string | undefined }[],
  erasedAt: Date = new Date(),
): EventToAppend {
  const data: ErasureData = {
    stream: streamId,
    events: events.map((e) => ({ revision: e.revision.toString(), position: formatPosition(e.position), hash: e.hash ?? "" })),
  };
  const id = randomUUID();
  return { id, type: ERASED, data, metadata: storeRecordMetadata(id, erasedAt) };
}
