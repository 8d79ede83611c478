import { formatTimestamp, newId, TidingsError, type Clock } from "@tidings/core";
import { commandRunner, decideCreate, release, reserve, type Changed } from "@tidings/commands";
import { eventDefinitionDecider, eventDefinitionStream, type EventDefinitionCommand, type EventSchema } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { eventNameStream, findEventDefinition, nameClaimCheck } from "../lookups/eventDefinitionStreams.js";

type Deps = { store: EventStore; clock: Clock };

const run = commandRunner(eventDefinitionStream, eventDefinitionDecider);

/** Checks the input, claims the name, then records the definition; a failure after the claim gives the name back. */
export async function createEventDefinition(
  deps: Deps,
  teamId: string,
  name: string,
  schema: EventSchema,
  metadata: EventMetadata,
): Promise<Changed> {
  const eventDefId = newId();
  const command: EventDefinitionCommand = {
    type: "CreateEventDefinition",
    eventDefId,
    teamId,
    name,
    schema,
    now: formatTimestamp(deps.clock.now()),
  };
  decideCreate(eventDefinitionDecider, command);
  const stream = eventNameStream(teamId, name);
  const claim = await reserve(
    deps.store,
    stream,
    eventDefId,
    metadata,
    nameClaimCheck(deps.store, teamId, name, () => deps.clock.now()),
  );
  if (!claim.won) throw new TidingsError("validation_error", `An event with \`name\` \`${name}\` already exists.`);
  try {
    return await run(deps.store, eventDefId, command, metadata);
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

export async function updateEventDefinition(
  deps: Deps,
  teamId: string,
  idOrName: string,
  schema: EventSchema,
  metadata: EventMetadata,
): Promise<Changed> {
  const { eventDefId } = await existing(deps, teamId, idOrName);
  return run(deps.store, eventDefId, { type: "UpdateEventDefinition", teamId, schema, now: formatTimestamp(deps.clock.now()) }, metadata);
}

/** Deleting gives the name back, so a new definition may take it. */
export async function deleteEventDefinition(deps: Deps, teamId: string, idOrName: string, metadata: EventMetadata): Promise<Changed> {
  const { eventDefId, name } = await existing(deps, teamId, idOrName);
  const deleted = await run(
    deps.store,
    eventDefId,
    { type: "DeleteEventDefinition", teamId, now: formatTimestamp(deps.clock.now()) },
    metadata,
  );
  await release(deps.store, eventNameStream(teamId, name), eventDefId, metadata);
  return deleted;
}
