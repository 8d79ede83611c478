import { sha256Hex } from "@tidings/core";
import { canonicalJson } from "./canonicalJson.js";

/** The previous hash of a stream's first event (and of the first one after an erasure). */
export const GENESIS = "";

/** What an event says, apart from where it is: its id, type, data and metadata (docs/operations.md, "Integrity"). */
export interface EventContent {
  id: string;
  type: string;
  data: unknown;
  metadata?: unknown;
}

/**
 * sha256 of the canonical JSON of {id, type, data, metadata}. The id is in it so that a reader cannot
 * guess short contents (an address) from an erased event's hash kept in its tombstone.
 */
export function contentHash(event: EventContent): string {
  // canonicalJson({id, type, data, metadata}) written out, its four keys in their sorted order.
  const data = canonicalJson(event.data ?? null);
  const metadata = canonicalJson(event.metadata ?? {});
  return sha256Hex(
    `{"data":${data},"id":${JSON.stringify(event.id.toLowerCase())},"metadata":${metadata},"type":${JSON.stringify(event.type)}}`,
  );
}

/**
 * An event's hash: sha256 of `prev|stream|revision|content` as plain text, which SQL computes too
 * (`eventstore.link_hash`), so PostgreSQL chains an append to the head it finds under its lock. The
 * parts around the stream id have fixed shapes (64 hex digits or empty, digits), so no two joins collide.
 */
export function linkHash(previous: string, streamId: string, revision: bigint, content: string): string {
  return sha256Hex(`${previous}|${streamId}|${revision}|${content}`);
}
