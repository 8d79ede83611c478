import { formatTimestamp, isUuid, newId, TidingsError, type Clock } from "@tidings/core";
import { DomainRejection, handleCommand, release, reservationStream, reservedBy, reserve } from "@tidings/commands";
import {
  contactPropertyDecider,
  contactPropertyStream,
  isDomainError,
  type ContactPropertyCommand,
  type ContactPropertyState,
  type ContactPropertyType,
  type ContactPropertyValue,
  type LiveContactProperty,
  type PropertyTypes,
} from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { loadAggregate } from "./loadAggregate.js";

type Deps = { store: EventStore; clock: Clock };

export interface ChangedContactProperty {
  id: string;
  position?: Position;
}

/** The reservation stream that makes a key unique within a team, and turns a key into its property. */
const keyStream = (teamId: string, key: string) => reservationStream(teamId, "contact-property-key", key);

const loadProperty = (store: EventStore, propertyId: string) => loadAggregate(store, contactPropertyStream(propertyId), contactPropertyDecider);

const isLive = (state: ContactPropertyState, teamId: string): state is LiveContactProperty => state.status === "active" && state.teamId === teamId;

/** How long a claim whose property does not exist yet counts as a create still under way. */
const claimGraceMs = 60_000;

export async function createContactProperty(
  deps: Deps,
  teamId: string,
  input: { key: string; type: ContactPropertyType; fallbackValue: ContactPropertyValue | null },
  metadata: EventMetadata,
): Promise<ChangedContactProperty> {
  const propertyId = newId();
  const command: ContactPropertyCommand = {
    type: "CreateContactProperty",
    propertyId,
    teamId,
    key: input.key,
    propertyType: input.type,
    fallbackValue: input.fallbackValue,
    now: formatTimestamp(deps.clock.now()),
  };
  // Refuse bad input before claiming the key, so a rejected create never holds one.
  const verdict = contactPropertyDecider.decide(command, contactPropertyDecider.initialState);
  if (isDomainError(verdict)) throw new DomainRejection(verdict);
  const claim = await reserve(deps.store, keyStream(teamId, input.key), propertyId, metadata, {
    // A claim holds while its property lives; one left by a process that died before creating is taken over.
    async stillHeld(ownerId, claimedAt) {
      const state = await loadProperty(deps.store, ownerId);
      if (state.status === "none") return deps.clock.now().getTime() - claimedAt.getTime() < claimGraceMs;
      return state.status === "active";
    },
  });
  if (!claim.won) throw new TidingsError("validation_error", `A contact property with \`key\` \`${input.key}\` already exists.`);
  try {
    const { position } = await handleCommand({ store: deps.store, streamId: contactPropertyStream(propertyId), decider: contactPropertyDecider, command, metadata });
    return { id: propertyId, ...(position ? { position } : {}) };
  } catch (error) {
    await release(deps.store, keyStream(teamId, input.key), propertyId, metadata);
    throw error;
  }
}

async function existing(store: EventStore, teamId: string, id: string): Promise<LiveContactProperty> {
  const state = isUuid(id) ? await loadProperty(store, id) : contactPropertyDecider.initialState;
  if (!isLive(state, teamId)) throw new TidingsError("not_found", "Contact property not found");
  return state;
}

export async function updateContactProperty(
  deps: Deps,
  teamId: string,
  id: string,
  fallbackValue: ContactPropertyValue | null,
  metadata: EventMetadata,
): Promise<ChangedContactProperty> {
  const property = await existing(deps.store, teamId, id);
  const command: ContactPropertyCommand = { type: "UpdateContactProperty", teamId, fallbackValue, now: formatTimestamp(deps.clock.now()) };
  const { position } = await handleCommand({ store: deps.store, streamId: contactPropertyStream(property.propertyId), decider: contactPropertyDecider, command, metadata });
  return { id: property.propertyId, ...(position ? { position } : {}) };
}

export async function deleteContactProperty(deps: Deps, teamId: string, id: string, metadata: EventMetadata): Promise<ChangedContactProperty> {
  const property = await existing(deps.store, teamId, id);
  const command: ContactPropertyCommand = { type: "DeleteContactProperty", teamId, now: formatTimestamp(deps.clock.now()) };
  const { position } = await handleCommand({ store: deps.store, streamId: contactPropertyStream(property.propertyId), decider: contactPropertyDecider, command, metadata });
  await release(deps.store, keyStream(teamId, property.key), property.propertyId, metadata);
  return { id: property.propertyId, ...(position ? { position } : {}) };
}

/**
 * The types of the team's properties named by `keys`, read from the event store (a key → stream lookup
 * through its reservation, DESIGN §1), so a contact written right after its property was created is
 * checked against it. A key with no live property is absent.
 */
export async function contactPropertyTypes(store: EventStore, teamId: string, keys: string[]): Promise<PropertyTypes> {
  const types: Record<string, ContactPropertyType> = {};
  await Promise.all(
    [...new Set(keys)].map(async (key) => {
      const owner = await reservedBy(store, keyStream(teamId, key));
      if (!owner) return;
      const state = await loadProperty(store, owner);
      if (isLive(state, teamId) && state.key === key) types[key] = state.type;
    }),
  );
  return types;
}
