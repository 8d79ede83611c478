import { formatTimestamp, isUuid, newId, TidingsError, type Clock } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { segmentDecider, segmentStream, type LiveSegment, type SegmentCommand, type SegmentState } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { loadAggregate } from "./loadAggregate.js";

type Deps = { store: EventStore; clock: Clock };

export interface ChangedSegment {
  id: string;
  position?: Position;
}

const isLive = (state: SegmentState, teamId: string): state is LiveSegment => state.status === "active" && state.teamId === teamId;

/** A live segment of the team, or 404 "Audience not found" (reference §2.4). */
export async function findSegment(store: EventStore, teamId: string, segmentId: string): Promise<LiveSegment> {
  const state = isUuid(segmentId) ? await loadAggregate(store, segmentStream(segmentId), segmentDecider) : segmentDecider.initialState;
  if (!isLive(state, teamId)) throw new TidingsError("not_found", "Audience not found");
  return state;
}

async function run(deps: Deps, segmentId: string, command: SegmentCommand, metadata: EventMetadata): Promise<ChangedSegment> {
  const { position } = await handleCommand({ store: deps.store, streamId: segmentStream(segmentId), decider: segmentDecider, command, metadata });
  return { id: segmentId, ...(position ? { position } : {}) };
}

export function createSegment(deps: Deps, teamId: string, name: string, metadata: EventMetadata): Promise<ChangedSegment> {
  const segmentId = newId();
  return run(deps, segmentId, { type: "CreateSegment", segmentId, teamId, name, now: formatTimestamp(deps.clock.now()) }, metadata);
}

export async function renameSegment(deps: Deps, teamId: string, segmentId: string, name: string, metadata: EventMetadata): Promise<ChangedSegment> {
  await findSegment(deps.store, teamId, segmentId);
  return run(deps, segmentId, { type: "RenameSegment", teamId, name, now: formatTimestamp(deps.clock.now()) }, metadata);
}

/** Idempotent (reference §2.4): a segment that is not there is reported deleted all the same. */
export async function deleteSegment(deps: Deps, teamId: string, segmentId: string, metadata: EventMetadata): Promise<ChangedSegment> {
  const state = isUuid(segmentId) ? await loadAggregate(deps.store, segmentStream(segmentId), segmentDecider) : segmentDecider.initialState;
  if (!isLive(state, teamId)) return { id: segmentId };
  return run(deps, segmentId, { type: "DeleteSegment", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
}
