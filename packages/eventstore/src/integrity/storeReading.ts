import { comparePositions, type Position, type RecordedEvent, type EventStore } from "../port.js";
import { ERASURE_STREAM, erasedEntries, isErasure, type ChainEntry, type ErasureData } from "./records.js";

/**
 * `$all` after `after` up to `until` (inclusive), a page at a time, so a walk keeps two pages in memory:
 * the next page is read while the caller works through this one, so the database and the hashing overlap.
 */
export async function* allEvents(store: EventStore, after: Position, until: Position, pageSize = 5_000): AsyncGenerator<RecordedEvent> {
  let reading = store.readAll({ after, maxCount: pageSize });
  for (;;) {
    const page = await reading;
    const full = page.length === pageSize && comparePositions(page.at(-1)!.position, until) < 0;
    if (full) {
      reading = store.readAll({ after: page.at(-1)!.position, maxCount: pageSize });
      // A walk that stops early leaves this read behind: its failure is nobody's to hear.
      reading.catch(() => {});
    }
    for (const event of page) {
      if (comparePositions(event.position, until) > 0) return;
      yield event;
    }
    if (!full) return;
  }
}

/**
 * Where a walk of the whole store should end: the newest event committed when it starts (`committed`). On
 * PostgreSQL readers see `$all` only below the oldest transaction still open anywhere on the server, so a
 * walk that stopped at what is readable now would miss every event committed after some unrelated long
 * transaction began, and report a short store as whole. This waits, up to `maxWaitMs`, for what was
 * committed to become readable (or to be erased meanwhile); past that, `until` is what is readable, short
 * of `committed`, and the walk says so.
 */
export async function committedHead(store: EventStore, maxWaitMs = 60_000): Promise<{ until: Position; committed: Position }> {
  const deadline = Date.now() + maxWaitMs;
  let target = await store.committedPosition();
  for (let wait = 10; ; wait = Math.min(wait * 2, 500)) {
    const readable = await store.headPosition();
    if (comparePositions(readable, target) >= 0) return { until: target, committed: target };
    if (Date.now() > deadline) return { until: readable, committed: target };
    await new Promise((resolve) => setTimeout(resolve, wait));
    // An erasure meanwhile can take the target away; what is committed then is the end to wait for.
    const committed = await store.committedPosition();
    if (comparePositions(committed, target) < 0) target = committed;
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
