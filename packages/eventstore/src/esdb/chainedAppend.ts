import { setTimeout as sleep } from "node:timers/promises";
import { WrongExpectedRevisionError, type EventToAppend, type ExpectedRevision, type RecordedEvent } from "../port.js";
import { contentHash, GENESIS, linkHash } from "../integrity/hashes.js";

/** Where the adapter keeps an event's hash in EventStoreDB: a metadata key the port's metadata does not show. */
export const HASH_KEY = "$hash";

export interface ChainedAppendDeps {
  /** The stream's newest events, newest first; [] for a stream that does not exist or was deleted. */
  newest(streamId: string, count: number): Promise<RecordedEvent[]>;
  /** Up to `count` events from revision `from` on, oldest first. */
  range(streamId: string, from: bigint, count: number): Promise<RecordedEvent[]>;
  /** The revision a deleted stream goes on from (its truncate-before), if it was deleted. */
  deletedUpTo(streamId: string): Promise<bigint | undefined>;
  write(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<{ nextExpectedRevision: bigint }>;
}

/** How far back an `any` append looks for itself: a retry comes soon after the append it repeats. */
const RETRY_WINDOW = 64;
/** Conflicts an `any` or `stream_exists` append rides out (PostgreSQL never refuses them) before giving up. */
const ATTEMPTS = 50;

/**
 * An append that chains each event's hash to the stream's last one (docs/operations.md, "Integrity").
 * EventStoreDB cannot compute the hash, so the adapter reads the stream's head, hashes, and appends at
 * exactly that revision: a concurrent append makes the server refuse it, and an append the caller made
 * with `any` or `stream_exists` reads the new head and tries again. Because the write names the head
 * read, not the caller's expected revision, the server's own idempotence cannot recognise a retry; so a
 * retry is found here, as the PostgreSQL adapter finds one, by its event ids where the append went.
 */
export async function chainedAppend(
  deps: ChainedAppendDeps,
  streamId: string,
  events: EventToAppend[],
  expected: ExpectedRevision,
): Promise<{ nextExpectedRevision: bigint }> {
  for (let attempt = 1; ; attempt++) {
    const newest = await deps.newest(streamId, RETRY_WINDOW);
    const last = newest[0];
    const actual = last ? last.revision : "no_stream";
    if (events.length > 0) {
      const written = await alreadyWritten(deps, streamId, events, expected, newest);
      if (written !== undefined) return { nextExpectedRevision: written };
    }
    if (!fits(expected, actual)) throw new WrongExpectedRevisionError(streamId, expected, actual);
    if (events.length === 0) return deps.write(streamId, events, expected);
    // A deleted stream (truncated) goes on after its last revision, from the genesis of a new chain.
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
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      const ridesOut = expected === "any" || expected === "stream_exists";
      if (!ridesOut || attempt >= ATTEMPTS) throw new WrongExpectedRevisionError(streamId, expected, error.actual);
      // Spread out, so that appenders racing for one stream (the erasure records) do not collide again in step.
      await sleep(Math.random() * Math.min(attempt, 10) * 5);
    }
  }
}

/**
 * The last revision of `events` when they are already in the stream where this append would have put them
 * (a retry of an append that was written), else undefined.
 */
async function alreadyWritten(
  deps: ChainedAppendDeps,
  streamId: string,
  events: EventToAppend[],
  expected: ExpectedRevision,
  newest: RecordedEvent[],
): Promise<bigint | undefined> {
  const head = newest[0];
  if (!head) return undefined;
  let there: RecordedEvent[];
  if (typeof expected === "bigint" || expected === "no_stream") {
    const from = typeof expected === "bigint" ? expected + 1n : ((await deps.deletedUpTo(streamId)) ?? 0n);
    if (head.revision < from) return undefined;
    there = await deps.range(streamId, from, events.length);
  } else {
    const first = events[0]!.id.toLowerCase();
    const at = newest.findIndex((event) => event.id === first);
    if (at < 0) return undefined;
    there =
      at + 1 >= events.length
        ? newest.slice(at + 1 - events.length, at + 1).reverse()
        : await deps.range(streamId, newest[at]!.revision, events.length);
  }
  const same = there.length === events.length && there.every((event, i) => event.id === events[i]!.id.toLowerCase());
  return same ? there.at(-1)!.revision : undefined;
}

function fits(expected: ExpectedRevision, actual: bigint | "no_stream"): boolean {
  if (expected === "any") return true;
  if (expected === "no_stream") return actual === "no_stream";
  if (expected === "stream_exists") return actual !== "no_stream";
  return actual === expected;
}
