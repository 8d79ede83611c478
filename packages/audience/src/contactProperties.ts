import { orNotFound } from "@tidings/core";
import {
  claimHeldWhile,
  commandNow,
  commandRunner,
  createClaiming,
  loadLive,
  loadState,
  release,
  reservationStream,
  reservedBy,
  type Changed,
  type CommandDeps,
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

/** The reservation stream that makes a key unique within a team, and turns a key into its property. */
const keyStream = (teamId: string, key: string) => reservationStream(teamId, "contact-property-key", key);

const loadProperty = (store: EventStore, propertyId: string) => loadState(store, contactPropertyStream(propertyId), contactPropertyDecider);
const run = commandRunner(contactPropertyStream, contactPropertyDecider);

export function createContactProperty(
  deps: CommandDeps,
  teamId: string,
  input: { key: string; type: ContactPropertyType; fallbackValue: ContactPropertyValue | null },
  metadata: EventMetadata,
  /** Given by a caller that must create the same resource when it runs again (a resumed migration). */
  propertyId?: string,
): Promise<Changed> {
  const claim = {
    stream: keyStream(teamId, input.key),
    options: claimHeldWhile(
      (ownerId) => loadProperty(deps.store, ownerId),
      (property) => property.status === "active",
      () => deps.clock.now(),
    ),
    taken: `A contact property with \`key\` \`${input.key}\` already exists.`,
  };
  const command = (propertyId: string, now: string): ContactPropertyCommand => ({
    type: "CreateContactProperty",
    propertyId,
    teamId,
    key: input.key,
    propertyType: input.type,
    fallbackValue: input.fallbackValue,
    now,
  });
  return createClaiming(deps, { decider: contactPropertyDecider, run, command }, claim, metadata, propertyId);
}

const existing = (store: EventStore, teamId: string, id: string): Promise<LiveContactProperty> =>
  orNotFound(loadLive(store, teamId, id, contactPropertyStream, contactPropertyDecider), "Contact property not found");

export async function updateContactProperty(
  deps: CommandDeps,
  teamId: string,
  id: string,
  fallbackValue: ContactPropertyValue | null,
  metadata: EventMetadata,
): Promise<Changed> {
  const property = await existing(deps.store, teamId, id);
  const command: ContactPropertyCommand = { type: "UpdateContactProperty", teamId, fallbackValue, now: commandNow(deps) };
  return run(deps.store, property.propertyId, command, metadata);
}

export async function deleteContactProperty(deps: CommandDeps, teamId: string, id: string, metadata: EventMetadata): Promise<Changed> {
  const property = await existing(deps.store, teamId, id);
  const command: ContactPropertyCommand = { type: "DeleteContactProperty", teamId, now: commandNow(deps) };
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
