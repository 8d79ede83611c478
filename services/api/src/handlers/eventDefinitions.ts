import { formatTimestamp, newId, TidingsError, type Clock } from "@tidings/core";
import { DomainRejection, handleCommand, release, reserve } from "@tidings/commands";
import { eventDefinitionDecider, eventDefinitionStream, isDomainError, type EventDefinitionCommand, type EventSchema } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { eventNameStream, findEventDefinition, nameClaimCheck } from "../lookups/eventDefinitionStreams.js";

type Deps = { store: EventStore; clock: Clock };

export interface ChangedEventDefinition {
  id: string;
  position?: Position;
}

const outcome = (id: string, position: Position | undefined): ChangedEventDefinition => ({ id, ...(position ? { position } : {}) });
const run = (deps: Deps, id: string, command: EventDefinitionCommand, metadata: EventMetadata) =>
  handleCommand({ store: deps.store, streamId: eventDefinitionStream(id), decider: eventDefinitionDecider, command, metadata });

/** Checks the input, claims the name, then records the definition; a failure after the claim gives the name back. */
export async function createEventDefinition(deps: Deps, teamId: string, name: string, schema: EventSchema, metadata: EventMetadata): Promise<ChangedEventDefinition> {
  const eventDefId = newId();
  const command: EventDefinitionCommand = { type: "CreateEventDefinition", eventDefId, teamId, name, schema, now: formatTimestamp(deps.clock.now()) };
  const verdict = eventDefinitionDecider.decide(command, eventDefinitionDecider.initialState);
  if (isDomainError(verdict)) throw new DomainRejection(verdict);
  const stream = eventNameStream(teamId, name);
  const claim = await reserve(deps.store, stream, eventDefId, metadata, nameClaimCheck(deps.store, teamId, name, () => deps.clock.now()));
  if (!claim.won) throw new TidingsError("validation_error", `An event with \`name\` \`${name}\` already exists.`);
  try {
    const { position } = await run(deps, eventDefId, command, metadata);
    return outcome(eventDefId, position);
  } catch (error) {
    await release(deps.store, stream, eventDefId, metadata);
    throw error;
  }
}

async function existing(deps: Deps, teamId: string, idOrName: string) {
  const found = await findEventDefinition(deps.store, teamId, idOrName);
  if (!found) throw new TidingsError("not_found", "Event not found");
  return found;
}

export async function updateEventDefinition(deps: Deps, teamId: string, idOrName: string, schema: EventSchema, metadata: EventMetadata): Promise<ChangedEventDefinition> {
  const { eventDefId } = await existing(deps, teamId, idOrName);
  const { position } = await run(deps, eventDefId, { type: "UpdateEventDefinition", teamId, schema, now: formatTimestamp(deps.clock.now()) }, metadata);
  return outcome(eventDefId, position);
}

/** Deleting gives the name back, so a new definition may take it. */
export async function deleteEventDefinition(deps: Deps, teamId: string, idOrName: string, metadata: EventMetadata): Promise<ChangedEventDefinition> {
  const { eventDefId, name } = await existing(deps, teamId, idOrName);
  const { position } = await run(deps, eventDefId, { type: "DeleteEventDefinition", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
  await release(deps.store, eventNameStream(teamId, name), eventDefId, metadata);
  return outcome(eventDefId, position);
}
