import { isUuid } from "@tidings/core";
import { claimHeldWhile, loadState, reservationStream, reservedBy, type ReserveOptions } from "@tidings/commands";
import {
  eventDefinitionDecider,
  eventDefinitionStream,
  isLiveFor,
  type EventDefinitionState,
  type LiveEventDefinition,
} from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/** The reservation stream that makes an event name unique within a team (DESIGN §1), and turns a name into its definition. */
export const eventNameStream = (teamId: string, name: string) => reservationStream(teamId, "event-name", name);

export const loadEventDefinition = (store: EventStore, eventDefId: string): Promise<EventDefinitionState> =>
  loadState(store, eventDefinitionStream(eventDefId), eventDefinitionDecider);

/** A live definition of the team, by id or name (reference §6.15), folded from the event store: never behind. */
export async function findEventDefinition(store: EventStore, teamId: string, idOrName: string): Promise<LiveEventDefinition | undefined> {
  if (isUuid(idOrName)) {
    const byId = await loadEventDefinition(store, idOrName);
    if (isLiveFor(byId, teamId)) return byId;
  }
  const owner = await reservedBy(store, eventNameStream(teamId, idOrName));
  if (!owner) return undefined;
  const byName = await loadEventDefinition(store, owner);
  return isLiveFor(byName, teamId) && byName.name === idOrName ? byName : undefined;
}

/** A name's claim holds while its definition lives with that name. */
export const nameClaimCheck = (store: EventStore, teamId: string, name: string, now: () => Date): ReserveOptions =>
  claimHeldWhile(
    (ownerId) => loadEventDefinition(store, ownerId),
    (definition) => isLiveFor(definition, teamId) && definition.name === name,
    now,
  );
