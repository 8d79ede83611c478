import type { EventMetadata, EventToAppend, Position, RecordedEvent } from "../port.js";
import { HASH_KEY } from "./chainedAppend.js";
import { jsonEvent, type EsdbRecordedEvent, type JSONType } from "./client.js";

export function toEventData(event: EventToAppend) {
  return jsonEvent({ id: event.id, type: event.type, data: event.data as JSONType, metadata: event.metadata });
}

/** Servers before 22.6 send the largest u64 instead of a position on stream reads. */
const NO_POSITION = 18446744073709551615n;

/**
 * The event's `$all` position, or undefined when the server did not report one. Position 0/0 counts as
 * missing too: it is the protobuf default, and the log begins with a system record, never a user event.
 */
export function positionOf(event: Pick<EsdbRecordedEvent, "position">): Position | undefined {
  const position = event.position;
  if (!position || position.commit === NO_POSITION || position.prepare === NO_POSITION) return undefined;
  if (position.commit === 0n && position.prepare === 0n) return undefined;
  return { commit: position.commit, prepare: position.prepare };
}

/** EventStoreDB's own events: `$`-prefixed types (`$metadata`, links `$>`) and streams (`$$…`, `$stats-…`). */
export function isSystemEvent(event: Pick<EsdbRecordedEvent, "type" | "streamId">): boolean {
  return event.type.startsWith("$") || event.streamId.startsWith("$");
}

function toMetadata(metadata: unknown): EventMetadata {
  // The adapter always writes an object; another writer's bytes, arrays or strings do not fit the port's shape.
  return typeof metadata === "object" && metadata !== null && !Array.isArray(metadata) && !(metadata instanceof Uint8Array)
    ? (metadata as EventMetadata)
    : {};
}

export function toRecordedEvent(event: EsdbRecordedEvent): RecordedEvent {
  const position = positionOf(event);
  if (!position) {
    throw new Error(
      `EventStoreDB reported no position for event ${event.revision} of ${event.streamId}: stream reads carry positions from EventStoreDB 22.6 on`,
    );
  }
  return {
    id: event.id,
    type: event.type,
    data: event.data,
    ...withoutHash(toMetadata(event.metadata)),
    streamId: event.streamId,
    revision: event.revision,
    position,
    createdAt: event.created,
  };
}

/** The port's metadata and hash from what the adapter stored: the hash rides in the metadata (chainedAppend.ts). */
function withoutHash(stored: EventMetadata): { metadata: EventMetadata; hash?: string } {
  const { [HASH_KEY]: hash, ...metadata } = stored;
  return typeof hash === "string" ? { metadata, hash } : { metadata: stored };
}
