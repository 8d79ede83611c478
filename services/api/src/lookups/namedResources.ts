import { claimHeldWhile, loadLive, loadState, reservationStream, reservedBy, type ReserveOptions } from "@tidings/commands";
import { isLiveFor, type Decider, type LiveResource, type ResourceState } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

export interface NamedKind<Record extends { teamId: string }, Event extends { type: string; data: unknown }> {
  /** What the reservation streams of the names are called (`template-alias`). */
  reservation: string;
  streamOf: (id: string) => string;
  decider: Pick<Decider<unknown, Event, ResourceState<Record>>, "initialState" | "evolve">;
  /** The name the resource holds now, if any. */
  nameOf: (resource: LiveResource<Record>) => string | null;
}

/** A live resource of a team, by id or by name; an id wins over a name that happens to look like one. */
export type FindNamed<Live> = (store: EventStore, teamId: string, idOrName: string) => Promise<Live | undefined>;

/**
 * Team resources that hold a name unique within the team (a template's alias, an event definition's name)
 * through a reservation stream (docs/architecture.md §1), the one place that says which resource holds a name. They are
 * read from the event store rather than the read model, so a write or a send right after another write
 * never acts on a stale row.
 */
export function namedResources<Record extends { teamId: string }, Event extends { type: string; data: unknown }>(
  kind: NamedKind<Record, Event>,
) {
  const nameStream = (teamId: string, name: string) => reservationStream(teamId, kind.reservation, name);
  const load = (store: EventStore, id: string): Promise<ResourceState<Record>> => loadState(store, kind.streamOf(id), kind.decider);
  const holds = (state: ResourceState<Record>, teamId: string, name: string): state is LiveResource<Record> =>
    isLiveFor(state, teamId) && kind.nameOf(state) === name;
  const find: FindNamed<LiveResource<Record>> = async (store, teamId, idOrName) => {
    const byId = await loadLive(store, teamId, idOrName, kind.streamOf, kind.decider);
    if (byId) return byId;
    const owner = await reservedBy(store, nameStream(teamId, idOrName));
    if (!owner) return undefined;
    const byName = await load(store, owner);
    return holds(byName, teamId, idOrName) ? byName : undefined;
  };
  return {
    nameStream,
    find,
    /** A name's claim holds while its resource lives with that name. */
    claimCheck: (store: EventStore, teamId: string, name: string, now: () => Date): ReserveOptions =>
      claimHeldWhile(
        (ownerId) => load(store, ownerId),
        (state) => holds(state, teamId, name),
        now,
      ),
  };
}
