import { comparePositions, formatPosition, parsePosition, START, WrongExpectedRevisionError, type EventStore } from "../port.js";
import { canonicalJson } from "./canonicalJson.js";
import { ErasedMerge } from "./erasedMerge.js";
import { isSeal, SEAL_STREAM, SEALED, storeRecordMetadata, type SealBody, type SealData } from "./records.js";
import type { SealKeys } from "./signing.js";
import { Stretch } from "./stretch.js";
import { allEvents, entryOf, erasedAfter } from "./storeReading.js";
import { randomUUID } from "node:crypto";

export interface SealOptions {
  keys: SealKeys;
  /** Seal even when nothing but the previous seal came since it (a seal on demand). */
  force?: boolean;
  now?: () => Date;
  /** Most events one seal covers (default `MAX_EVENTS_PER_SEAL`); the rest go to the next seal. */
  maxEvents?: number;
}

/**
 * A seal keeps the head of every stream its stretch moved until it is signed: at a broadcast's rate, five
 * minutes of `$all` moved about 100,000 email streams, and sealing them at once took the projector's heap
 * up by 300 MB. Once it holds this many entries the seal ends at the last event, and the next seal goes on
 * from there; erased events merged back in just before that event can take it a few entries past.
 */
export const MAX_EVENTS_PER_SEAL = 20_000;

export type SealOutcome =
  | { sealed: true; seal: SealData; /** The seal stopped at `maxEvents`, short of the store's head: seal again. */ more: boolean }
  | { sealed: false; reason: "nothing new" | "another process sealed first"; previous?: SealData };

/**
 * Appends the next seal (docs/operations.md, "Integrity"): it covers `$all` from the previous seal's
 * `until` to the store's head now (or its `maxEvents`-th event), erased events put back in their places, and is signed with the
 * store's seal key. Appended at the seal stream's expected revision, so two sealers cannot fork the
 * chain of seals: the second finds it moved and gives way.
 */
export async function sealStore(store: EventStore, options: SealOptions): Promise<SealOutcome> {
  const [last] = await store.readStream(SEAL_STREAM, { direction: "backwards", maxCount: 1 });
  const previous = last && isSeal(last) ? (last.data as SealData) : undefined;
  const from = previous ? parsePosition(previous.until) : START;
  const maxEvents = options.maxEvents ?? MAX_EVENTS_PER_SEAL;
  const head = await store.headPosition();
  let until = head;
  const merge = new ErasedMerge(await erasedAfter(store, from));
  const stretch = new Stretch();
  let news = false;
  for await (const event of allEvents(store, from, head)) {
    for (const entry of merge.before(event.position).entries) stretch.add(entry);
    stretch.add(entryOf(event));
    news ||= !isSeal(event);
    if (stretch.size >= maxEvents) {
      until = event.position;
      break;
    }
  }
  for (const entry of merge.rest(until)) stretch.add(entry);
  if (!news && !options.force) return { sealed: false, reason: "nothing new", ...(previous && { previous }) };
  const summary = stretch.close();
  const sealedAt = options.now?.() ?? new Date();
  const body: SealBody = {
    version: 1,
    sequence: previous ? previous.sequence + 1 : 0,
    previous: last?.hash ?? null,
    from: previous ? previous.until : null,
    until: formatPosition(until),
    events: summary.events,
    digest: summary.digest,
    heads: summary.heads,
    sealedAt: sealedAt.toISOString(),
    publicKey: options.keys.publicKey,
  };
  const seal: SealData = { ...body, signature: options.keys.sign(canonicalJson(body)) };
  const id = randomUUID();
  try {
    await store.append(
      SEAL_STREAM,
      [{ id, type: SEALED, data: seal, metadata: storeRecordMetadata(id, sealedAt) }],
      last ? last.revision : "no_stream",
    );
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return { sealed: false, reason: "another process sealed first" };
    throw error;
  }
  return { sealed: true, seal, more: comparePositions(until, head) < 0 };
}

/** The body a seal's signature covers. */
export function sealBody(seal: SealData): SealBody {
  const { signature: _signature, ...body } = seal;
  return body;
}
