import { comparePositions, type Position, type RecordedEvent, type EventStore } from "../port.js";
import { ERASURE_STREAM, erasedEntries, isErasure, type ChainEntry, type ErasureData } from "./records.js";

/** `$all` after `after` up to `until` (inclusive), a page at a time, so a walk keeps one page in memory. */
export async function* allEvents(store: EventStore, after: Position, until: Position, pageSize = 2_000): AsyncGenerator<RecordedEvent> {
  let from = after;
  for (;;) {
    const page = await store.readAll({ after: from, maxCount: pageSize });
    for (const event of page) {
      if (comparePositions(event.position, until) > 0) return;
      yield event;
    }
    if (page.length < pageSize) return;
    from = page.at(-1)!.position;
  }
}

/** The erased events that the store's erasure records stand for, after `after`. */
export async function erasedAfter(store: EventStore, after: Position): Promise<ChainEntry[]> {
  const records = await store.readStream(ERASURE_STREAM);
  return records
    .filter(isErasure)
    .flatMap((event) => erasedEntries(event.data as ErasureData))
    .filter((entry) => comparePositions(entry.position, after) > 0);
}

export function entryOf(event: RecordedEvent): ChainEntry {
  return { streamId: event.streamId, revision: event.revision, position: event.position, hash: event.hash, event };
}
