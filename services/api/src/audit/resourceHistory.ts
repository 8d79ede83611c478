import { comparePositions, streamCategory, type EventStore, type RecordedEvent } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { eventTeamId, productProjections, readModels, replayInScratch } from "@tidings/projections";
import type { ResourceRead } from "./resourceReads.js";

/** A moment of a resource's history: after its stream's event of this revision, or at this time. */
export type PointInTime = { revision: bigint } | { time: Date };

export interface ResourceHistory {
  stream: string;
  id: string;
  /** Its own stream and every stream the audit index links to its id, in log order. */
  events: RecordedEvent[];
  /** Its own stream's events, to which a change is attributed. */
  own: RecordedEvent[];
}

/**
 * The events that make a resource as the read models fold them: its stream's, and those of the streams
 * whose events name it (a broadcast's counts come from its emails' streams), found in the audit index.
 */
export async function resourceHistory(store: EventStore, database: Database, stream: string): Promise<ResourceHistory> {
  const id = stream.slice(stream.indexOf("-") + 1);
  const own = await store.readStream(stream);
  const related = await readModels(database)
    .selectFrom("audit_refs")
    .where("key", "=", id)
    .where("stream_id", "<>", stream)
    .select("stream_id")
    .distinct()
    .execute();
  const events = [...own];
  for (const { stream_id } of related) events.push(...(await store.readStream(stream_id)));
  events.sort((a, b) => comparePositions(a.position, b.position));
  return { stream, id, events, own };
}

/** The events of a history up to a point: its own stream's revision, or a time (the store's clock). */
export function upTo(history: ResourceHistory, at: PointInTime): RecordedEvent[] {
  if ("time" in at) return history.events.filter((e) => e.createdAt.getTime() <= at.time.getTime());
  const last = history.own.find((e) => e.revision === at.revision) ?? history.own.at(-1);
  if (!last) return [];
  return history.events.filter((e) => comparePositions(e.position, last.position) <= 0);
}

/**
 * The resource as its GET route showed it once the read models held exactly `events`: undefined before
 * it was created or after it was deleted. The read models' own handlers fold the events into scratch
 * tables and the route's own query reads them (replayInScratch), so the fields are GET's.
 */
export async function stateAt(
  database: Database,
  reads: Record<string, ResourceRead>,
  history: ResourceHistory,
  events: RecordedEvent[],
): Promise<object | undefined> {
  const first = events.find((e) => e.streamId === history.stream);
  const teamId = first && eventTeamId(first);
  const read = reads[streamCategory(history.stream)];
  if (!teamId || !read) return undefined;
  return replayInScratch(database, productProjections, events, (scratch) => read(scratch, teamId, history.id));
}
