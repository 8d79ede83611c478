import { eventDefinitionDecider, eventDefinitionStream, type LiveEventDefinition } from "@tidings/domain";
import { namedResources, type FindNamed } from "./namedResources.js";

/** Event definitions by id or name (docs/wire-compatibility.md §6.15); a name is unique within a team. */
const eventDefinitions = namedResources({
  reservation: "event-name",
  streamOf: eventDefinitionStream,
  decider: eventDefinitionDecider,
  nameOf: (definition) => definition.name,
});

export const eventNameStream = eventDefinitions.nameStream;
export const findEventDefinition: FindNamed<LiveEventDefinition> = eventDefinitions.find;
export const nameClaimCheck = eventDefinitions.claimCheck;
