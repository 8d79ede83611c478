import { WrongExpectedRevisionError, type EventToAppend, type ExpectedRevision, type RecordedEvent } from "../port.js";
import { contentHash, GENESIS, linkHash } from "../integrity/hashes.js";

/** Where the adapter keeps an event's hash in EventStoreDB: a metadata key the port's metadata does not show. */
export const HASH_KEY = "$hash";

export interface ChainedAppendDeps {
  /** The stream's newest events, newest first; [] for a stream that does not exist or was deleted. */
  newest(streamId: string, count: number): Promise<RecordedEvent[]>;
  /** The revision a deleted stream goes on from (its truncate-before), if it was deleted. */
  deletedUpTo(streamId: string): Promise<bigint | undefined>;
  write(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<{ nextExpectedRevision: bigint }>;
}

const ATTEMPTS = 5;

/**
 * An append that chains each event's hash to the stream's last one (docs/operations.md, "Integrity").
 * EventStoreDB cannot compute the hash, so the adapter reads the stream's head, hashes, and appends at
 * exactly that revision: a concurrent append makes the server refuse it, and an append the caller made
 * with `any` reads the new head and tries again. A retry of an append already written (its ids are the
 * stream's newest events) answers as the server's own idempotence would.
 */
export async function chainedAppend(
  deps: ChainedAppendDeps,
  streamId: string,
  events: EventToAppend[],
  expected: ExpectedRevision,
): Promise<{ nextExpectedRevision: bigint }> {
  let conflict: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const newest = await deps.newest(streamId, Math.max(events.length, 1));
    const last = newest[0];
    const actual = last ? last.revision : "no_stream";
    if (events.length > 0 && isRetry(newest, events)) {
      const start = newest[events.length - 1]!.revision;
      if (fits(expected, start - 1n < 0n ? "no_stream" : start - 1n)) return { nextExpectedRevision: last!.revision };
      throw new WrongExpectedRevisionError(streamId, expected, actual);
    }
    if (!fits(expected, actual)) throw new WrongExpectedRevisionError(streamId, expected, actual);
    if (events.length === 0) return deps.write(streamId, events, expected);
    const deletedUpTo = last ? undefined : await deps.deletedUpTo(streamId);
    const base = last ? last.revision : deletedUpTo !== undefined ? deletedUpTo - 1n : -1n;
    let previous = last?.hash ?? GENESIS;
    const chained = events.map((event, i) => {
      previous = linkHash(previous, streamId, base + 1n + BigInt(i), contentHash(event));
      return { ...event, metadata: { ...event.metadata, [HASH_KEY]: previous } };
    });
    try {
      return await deps.write(streamId, chained, base >= 0n ? base : "no_stream");
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || expected !== "any") {
        throw error instanceof WrongExpectedRevisionError ? new WrongExpectedRevisionError(streamId, expected, error.actual) : error;
      }
      conflict = error;
    }
  }
  throw conflict;
}

function isRetry(newest: RecordedEvent[], events: EventToAppend[]): boolean {
  if (newest.length < events.length) return false;
  return events.every((event, i) => newest[events.length - 1 - i]!.id === event.id.toLowerCase());
}

function fits(expected: ExpectedRevision, actual: bigint | "no_stream"): boolean {
  if (expected === "any") return true;
  if (expected === "no_stream") return actual === "no_stream";
  if (expected === "stream_exists") return actual !== "no_stream";
  return actual === expected;
}
