import { isUuid } from "@tidings/core";
import { fold, isLiveFor, type Decider, type LiveResource, type ResourceState } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/** An aggregate's state as its stream says now: what a saga or a lookup decides from, never a read model (docs/architecture.md §1). */
export async function loadState<Event extends { type: string; data: unknown }, State>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<unknown, Event, State>, "initialState" | "evolve">,
): Promise<State> {
  const recorded = await store.readStream(streamId);
  return fold(
    decider,
    recorded.map((e) => ({ type: e.type, data: e.data }) as Event),
  );
}

/**
 * The team's live resource `id`, as its stream says now; undefined when it is another team's, deleted or
 * never created. An id that is not a uuid names no stream, so nothing is read for it.
 */
export async function loadLive<Event extends { type: string; data: unknown }, Record extends { teamId: string }>(
  store: EventStore,
  teamId: string,
  id: string,
  streamOf: (id: string) => string,
  decider: Pick<Decider<unknown, Event, ResourceState<Record>>, "initialState" | "evolve">,
): Promise<LiveResource<Record> | undefined> {
  if (!isUuid(id)) return undefined;
  const state = await loadState(store, streamOf(id), decider);
  return isLiveFor(state, teamId) ? state : undefined;
}
