import { formatTimestamp, newId, orNotFound, TidingsError, type Clock } from "@tidings/core";
import {
  claimHeldWhile,
  commandRunner,
  decideCreate,
  loadLive,
  loadState,
  release,
  reservationStream,
  reservedBy,
  reserve,
  type Changed,
} from "@tidings/commands";
import {
  contactPropertyDecider,
  contactPropertyStream,
  isLiveFor,
  type ContactPropertyCommand,
  type ContactPropertyType,
  type ContactPropertyValue,
  type LiveContactProperty,
  type PropertyTypes,
} from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";

type Deps = { store: EventStore; clock: Clock };

/** The reservation stream that makes a key unique within a team, and turns a key into its property. */
const keyStream = (teamId: string, key: string) => reservationStream(teamId, "contact-property-key", key);

const loadProperty = (store: EventStore, propertyId: string) => loadState(store, contactPropertyStream(propertyId), contactPropertyDecider);
const run = commandRunner(contactPropertyStream, contactPropertyDecider);

export async function createContactProperty(
  deps: Deps,
  teamId: string,
  input: { key: string; type: ContactPropertyType; fallbackValue: ContactPropertyValue | null },
  metadata: EventMetadata,
): Promise<Changed> {
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
  decideCreate(contactPropertyDecider, command);
  const stillHeld = claimHeldWhile(
    (ownerId) => loadProperty(deps.store, ownerId),
    (property) => property.status === "active",
    () => deps.clock.now(),
  );
  const claim = await reserve(deps.store, keyStream(teamId, input.key), propertyId, metadata, stillHeld);
  if (!claim.won) throw new TidingsError("validation_error", `A contact property with \`key\` \`${input.key}\` already exists.`);
  try {
    return await run(deps.store, propertyId, command, metadata);
  } catch (error) {
    await release(deps.store, keyStream(teamId, input.key), propertyId, metadata);
    throw error;
  }
}

const existing = (store: EventStore, teamId: string, id: string): Promise<LiveContactProperty> =>
  orNotFound(loadLive(store, teamId, id, contactPropertyStream, contactPropertyDecider), "Contact property not found");

export async function updateContactProperty(
  deps: Deps,
  teamId: string,
  id: string,
  fallbackValue: ContactPropertyValue | null,
  metadata: EventMetadata,
): Promise<Changed> {
  const property = await existing(deps.store, teamId, id);
  const command: ContactPropertyCommand = { type: "UpdateContactProperty", teamId, fallbackValue, now: formatTimestamp(deps.clock.now()) };
  return run(deps.store, property.propertyId, command, metadata);
}

export async function deleteContactProperty(deps: Deps, teamId: string, id: string, metadata: EventMetadata): Promise<Changed> {
  const property = await existing(deps.store, teamId, id);
  const command: ContactPropertyCommand = { type: "DeleteContactProperty", teamId, now: formatTimestamp(deps.clock.now()) };
  const deleted = await run(deps.store, property.propertyId, command, metadata);
  await release(deps.store, keyStream(teamId, property.key), property.propertyId, metadata);
  return deleted;
}

/**
 * The types of the team's properties named by `keys`, read from the event store (a key → stream lookup
 * through its reservation, docs/architecture.md §1), so a contact written right after its property was created is
 * checked against it. A key with no live property is absent.
 */
export async function contactPropertyTypes(store: EventStore, teamId: string, keys: string[]): Promise<PropertyTypes> {
  const types: Record<string, ContactPropertyType> = {};
  await Promise.all(
    [...new Set(keys)].map(async (key) => {
      const owner = await reservedBy(store, keyStream(teamId, key));
      if (!owner) return;
      const state = await loadProperty(store, owner);
      if (isLiveFor(state, teamId) && state.key === key) types[key] = state.type;
    }),
  );
  return types;
}
