import { TidingsError } from "@tidings/core";
import { commandNow, commandRunner, createClaiming, release, type Changed, type CommandDeps } from "@tidings/commands";
import { eventDefinitionDecider, eventDefinitionStream, type EventDefinitionCommand, type EventSchema } from "@tidings/domain";
import type { EventMetadata } from "@tidings/eventstore";
import { eventNameStream, findEventDefinition, nameClaimCheck } from "../lookups/eventDefinitionStreams.js";

const run = commandRunner(eventDefinitionStream, eventDefinitionDecider);

/** Checks the input, claims the name, then records the definition; a failure after the claim gives the name back. */
export function createEventDefinition(
  deps: CommandDeps,
  teamId: string,
  name: string,
  schema: EventSchema,
  metadata: EventMetadata,
): Promise<Changed> {
  const claim = {
    stream: eventNameStream(teamId, name),
    options: nameClaimCheck(deps.store, teamId, name, () => deps.clock.now()),
    taken: `An event with \`name\` \`${name}\` already exists.`,
  };
  const command = (eventDefId: string, now: string): EventDefinitionCommand => ({
    type: "CreateEventDefinition",
    eventDefId,
    teamId,
    name,
    schema,
    now,
  });
  return createClaiming(deps, { decider: eventDefinitionDecider, run, command }, claim, metadata);
}

async function existing(deps: CommandDeps, teamId: string, idOrName: string) {
  const found = await findEventDefinition(deps.store, teamId, idOrName);
  if (!found) throw new TidingsError("not_found", "Event not found");
  return found;
}

export async function updateEventDefinition(
  deps: CommandDeps,
  teamId: string,
  idOrName: string,
  schema: EventSchema,
  metadata: EventMetadata,
): Promise<Changed> {
  const { eventDefId } = await existing(deps, teamId, idOrName);
  return run(deps.store, eventDefId, { type: "UpdateEventDefinition", teamId, schema, now: commandNow(deps) }, metadata);
}

/** Deleting gives the name back, so a new definition may take it. */
export async function deleteEventDefinition(
  deps: CommandDeps,
  teamId: string,
  idOrName: string,
  metadata: EventMetadata,
): Promise<Changed> {
  const { eventDefId, name } = await existing(deps, teamId, idOrName);
  const deleted = await run(deps.store, eventDefId, { type: "DeleteEventDefinition", teamId, now: commandNow(deps) }, metadata);
  await release(deps.store, eventNameStream(teamId, name), eventDefId, metadata);
  return deleted;
}
