import { isUuid } from "@tidings/core";
import { loadState, reservationStream, reservedBy, type ReserveOptions } from "@tidings/commands";
import { eventDefinitionDecider, eventDefinitionStream, type EventDefinitionState, type LiveEventDefinition } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/** The reservation stream that makes an event name unique within a team (DESIGN §1), and turns a name into its definition. */
export const eventNameStream = (teamId: string, name: string) => reservationStream(teamId, "event-name", name);

export const loadEventDefinition = (store: EventStore, eventDefId: string): Promise<EventDefinitionState> =>
  loadState(store, eventDefinitionStream(eventDefId), eventDefinitionDecider);

const isLive = (state: EventDefinitionState, teamId: string): state is LiveEventDefinition => state.status === "active" && state.teamId === teamId;

/** A live definition of the team, by id or name (reference §6.15), folded from the event store: never behind. */
export async function findEventDefinition(store: EventStore, teamId: string, idOrName: string): Promise<LiveEventDefinition | undefined> {
  if (isUuid(idOrName)) {
    const byId = await loadEventDefinition(store, idOrName);
    if (isLive(byId, teamId)) return byId;
  }
  const owner = await reservedBy(store, eventNameStream(teamId, idOrName));
  if (!owner) return undefined;
  const byName = await loadEventDefinition(store, owner);
  return isLive(byName, teamId) && byName.name === idOrName ? byName : undefined;
}

/** How long a claim whose definition does not exist yet counts as a create still under way. */
const claimGraceMs = 60_000;

/** A name's claim holds while its definition lives; one left by a process that died mid-create is taken over. */
export function nameClaimCheck(store: EventStore, teamId: string, name: string, now: () => Date): ReserveOptions {
  return {
    async stillHeld(ownerId, claimedAt) {
      const state = await loadEventDefinition(store, ownerId);
      if (state.status === "none") return now().getTime() - claimedAt.getTime() < claimGraceMs;
      return isLive(state, teamId) && state.name === name;
    },
  };
}
