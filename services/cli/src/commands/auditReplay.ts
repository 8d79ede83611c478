import { resourceReads } from "@tidings/api";
import { comparePositions, streamCategory, type RecordedEvent } from "@tidings/eventstore";
import { eventTeamId, isUuid, productProjections, readModels, replayInScratch } from "@tidings/projections";
import type { Runtime } from "../runtime.js";
import { UsageError } from "../usageError.js";

/** A moment of a resource's history: after its stream's event of this revision, or at this time. */
export type PointInTime = { revision: bigint } | { time: Date };

export function parsePointInTime(text: string, option: string): PointInTime {
  if (/^\d+$/.test(text)) return { revision: BigInt(text) };
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new UsageError(`${option} takes an ISO time (2026-01-31T12:00:00Z) or a revision (0, 1, …), not "${text}"`);
  return { time: new Date(time) };
}

export interface ReplayedResource {
  stream: string;
  id: string;
  /** The resource's whole history: its own stream and every stream the audit index links to it, in log order. */
  events: RecordedEvent[];
  /** The events that name the resource's stream, the ones an auditor's `--diff` attributes changes to. */
  own: RecordedEvent[];
}

/**
 * The resource a target names (`template-<id>`, or a bare id looked up in the audit index, else tried in
 * each category) with the events that make it: its stream and the streams that name it, as the read
 * models fold them (a broadcast's counts come from its emails' streams).
 */
export async function loadResource(runtime: Runtime, target: string, supported: readonly string[]): Promise<ReplayedResource> {
  const stream = await streamOf(runtime, target.trim().toLowerCase(), supported);
  const id = stream.slice(stream.indexOf("-") + 1);
  const own = await runtime.store.readStream(stream);
  const related = await readModels(runtime.database)
    .selectFrom("audit_refs")
    .where("key", "=", id)
    .where("stream_id", "<>", stream)
    .select("stream_id")
    .distinct()
    .execute();
  const events = [...own];
  for (const { stream_id } of related) events.push(...(await runtime.store.readStream(stream_id)));
  events.sort((a, b) => comparePositions(a.position, b.position));
  return { stream, id, events, own };
}

async function streamOf(runtime: Runtime, target: string, supported: readonly string[]): Promise<string> {
  if (!isUuid(target)) {
    const category = streamCategory(target);
    if (category === target || !isUuid(target.slice(category.length + 1)))
      throw new UsageError(`audit state takes a resource id or a stream id such as template-<id>, not "${target}"`);
    if (!supported.includes(category)) throw new UsageError(`audit state replays ${supported.join(", ")} streams, not ${category}`);
    return target;
  }
  for (const candidate of supported.map((c) => `${c}-${target}`)) {
    if ((await runtime.store.readStream(candidate, { maxCount: 1 })).length > 0) return candidate;
  }
  throw new UsageError(`no ${supported.join(", ")} stream has the id ${target}`);
}

/** The events of the history up to a point: its own stream's revision, or a time (the store's clock). */
export function upTo(resource: ReplayedResource, at: PointInTime): RecordedEvent[] {
  if ("time" in at) return resource.events.filter((e) => e.createdAt.getTime() <= at.time.getTime());
  const last = resource.own.find((e) => e.revision === at.revision) ?? resource.own.at(-1);
  if (!last || at.revision < 0n) return [];
  return resource.events.filter((e) => comparePositions(e.position, last.position) <= 0);
}

/**
 * The resource as its GET route showed it once the read models held exactly `events`: undefined before
 * it was created or after it was deleted. The read models' own handlers fold the events into scratch
 * tables and the route's own query reads them (replayInScratch), so the fields are GET's.
 */
export async function stateAt(runtime: Runtime, resource: ReplayedResource, events: RecordedEvent[]): Promise<object | undefined> {
  const own = events.find((e) => e.streamId === resource.stream);
  const teamId = own && eventTeamId(own);
  if (!teamId) return undefined;
  const read = readsFor(runtime)[streamCategory(resource.stream)]!;
  return replayInScratch(runtime.database, productProjections, events, (scratch) => read(scratch, teamId, resource.id));
}

export const readsFor = (runtime: Runtime) => resourceReads(new URL(runtime.config.PUBLIC_URL).hostname);
