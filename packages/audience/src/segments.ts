import { formatTimestamp, newId, orNotFound, type Clock } from "@tidings/core";
import { commandRunner, loadLive, type Changed } from "@tidings/commands";
import { segmentDecider, segmentStream, type LiveSegment } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";

type Deps = { store: EventStore; clock: Clock };

const run = commandRunner(segmentStream, segmentDecider);

/** A live segment of the team, or 404 "Audience not found" (docs/wire-compatibility.md §2.4). */
export const findSegment = (store: EventStore, teamId: string, segmentId: string): Promise<LiveSegment> =>
  orNotFound(loadLive(store, teamId, segmentId, segmentStream, segmentDecider), "Audience not found");

export function createSegment(
  deps: Deps,
  teamId: string,
  name: string,
  metadata: EventMetadata,
  /** Given by a caller that must create the same resource when it runs again (a resumed migration). */
  segmentId: string = newId(),
): Promise<Changed> {
  return run(deps.store, segmentId, { type: "CreateSegment", segmentId, teamId, name, now: formatTimestamp(deps.clock.now()) }, metadata);
}

export async function renameSegment(
  deps: Deps,
  teamId: string,
  segmentId: string,
  name: string,
  metadata: EventMetadata,
): Promise<Changed> {
  await findSegment(deps.store, teamId, segmentId);
  return run(deps.store, segmentId, { type: "RenameSegment", teamId, name, now: formatTimestamp(deps.clock.now()) }, metadata);
}

/** Idempotent (docs/wire-compatibility.md §2.4): a segment that is not there is reported deleted all the same. */
export async function deleteSegment(deps: Deps, teamId: string, segmentId: string, metadata: EventMetadata): Promise<Changed> {
  if (!(await loadLive(deps.store, teamId, segmentId, segmentStream, segmentDecider))) return { id: segmentId };
  return run(deps.store, segmentId, { type: "DeleteSegment", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
}
