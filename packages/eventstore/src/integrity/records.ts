import { parsePosition, type EventMetadata, type Position, type RecordedEvent } from "../port.js";

/** The stream the seals are appended to, one after another (docs/operations.md, "Integrity"). */
export const SEAL_STREAM = "integrity-seals";
export const SEALED = "StoreSealed";
/** The stream of erasure records: what a deleted stream held, by hash only. */
export const ERASURE_STREAM = "integrity-erasures";
export const ERASED = "StreamErased";

/**
 * The metadata of a record the store writes of itself: no request caused it, so, like every operation no
 * request started (docs/events.md, Metadata), it starts a chain of its own under its own id.
 */
export function storeRecordMetadata(id: string, at: Date): EventMetadata {
  return { occurredAt: at.toISOString(), actor: "eventstore", correlationId: id, causationId: id };
}

/** What a seal signs. `from` (exclusive) and `until` (inclusive) bound the stretch of `$all` it covers. */
export interface SealBody {
  version: 1;
  sequence: number;
  /** The hash of the previous seal's event; null for the first seal. */
  previous: string | null;
  from: string | null;
  until: string;
  /** Events in the stretch, erased ones included. */
  events: number;
  /** sha256 over the stretch's event hashes, in `$all` order. */
  digest: string;
  /** The Merkle root over the heads of the streams the stretch moved (merkle.ts), and how many. */
  heads: { streams: number; root: string };
  sealedAt: string;
  publicKey: string;
}

export interface SealData extends SealBody {
  /** Ed25519 over the canonical JSON of the body, in hex. */
  signature: string;
}

/** One event of an erased stream, as its erasure record keeps it. */
export interface ErasedEvent {
  revision: string;
  position: string;
  hash: string;
}

export interface ErasureData {
  stream: string;
  /** The stream's events when it was erased, oldest first. */
  events: ErasedEvent[];
}

/** One entry of the `$all` sequence as integrity checks see it; `erased` ones stand for events gone by erasure. */
export interface ChainEntry {
  streamId: string;
  revision: bigint;
  position: Position;
  hash: string | undefined;
  event?: RecordedEvent;
  erased?: true;
}

export function isSeal(event: Pick<RecordedEvent, "streamId" | "type">): boolean {
  return event.streamId === SEAL_STREAM && event.type === SEALED;
}

export function isErasure(event: Pick<RecordedEvent, "streamId" | "type">): boolean {
  return event.streamId === ERASURE_STREAM && event.type === ERASED;
}

/** The entries an erasure record stands for, oldest first. */
export function erasedEntries(data: ErasureData): ChainEntry[] {
  return data.events.map((e) => ({
    streamId: data.stream,
    revision: BigInt(e.revision),
    position: parsePosition(e.position),
    hash: e.hash,
    erased: true,
  }));
}
