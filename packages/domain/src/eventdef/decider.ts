import { DomainError, type Decider } from "../decider.js";
import { createdBefore, isLiveFor, markDeleted, noResource, type LiveResource, type ResourceState } from "../teamResource.js";
import type { EventDefinitionEvent, EventSchema } from "./events.js";
import { checkEventName, checkEventSchema } from "./rules.js";

export const eventDefinitionStream = (eventDefId: string) => `eventdef-${eventDefId}`;

export type EventDefinitionCommand =
  | { type: "CreateEventDefinition"; eventDefId: string; teamId: string; name: string; schema: EventSchema; now: string }
  | { type: "UpdateEventDefinition"; teamId: string; schema: EventSchema; now: string }
  | { type: "DeleteEventDefinition"; teamId: string; now: string };

interface EventDefinitionRecord {
  eventDefId: string;
  teamId: string;
  name: string;
  schema: EventSchema;
  createdAt: string;
  updatedAt: string | null;
}

export type EventDefinitionState = ResourceState<EventDefinitionRecord>;
export type LiveEventDefinition = LiveResource<EventDefinitionRecord>;

const notFound = () => new DomainError("not_found", "Event not found");
const sameSchema = (a: EventSchema, b: EventSchema) =>
  a === null || b === null ? a === b : Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, t]) => b[k] === t);

export const eventDefinitionDecider: Decider<EventDefinitionCommand, EventDefinitionEvent, EventDefinitionState> = {
  initialState: noResource,
  evolve(state, event) {
    switch (event.type) {
      case "EventDefinitionCreated": {
        const { eventDefId, teamId, name, schema, createdAt } = event.data;
        return { status: "active", eventDefId, teamId, name, schema, createdAt, updatedAt: null };
      }
      case "EventDefinitionUpdated":
        return state.status === "none" ? state : { ...state, schema: event.data.schema, updatedAt: event.data.updatedAt };
      case "EventDefinitionDeleted":
        return markDeleted(state);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "CreateEventDefinition": {
        if (state.status !== "none") return createdBefore(state.teamId === command.teamId && state.name === command.name, "Event");
        const invalid = checkEventName(command.name) ?? checkEventSchema(command.schema);
        if (invalid) return invalid;
        const { eventDefId, teamId, name, schema, now } = command;
        return [{ type: "EventDefinitionCreated", data: { eventDefId, teamId, name, schema, createdAt: now } }];
      }
      case "UpdateEventDefinition": {
        if (!isLiveFor(state, command.teamId)) return notFound();
        const invalid = checkEventSchema(command.schema);
        if (invalid) return invalid;
        if (sameSchema(state.schema, command.schema)) return [];
        return [{ type: "EventDefinitionUpdated", data: { eventDefId: state.eventDefId, schema: command.schema, updatedAt: command.now } }];
      }
      case "DeleteEventDefinition":
        if (!isLiveFor(state, command.teamId)) return notFound();
        return [
          {
            type: "EventDefinitionDeleted",
            data: { eventDefId: state.eventDefId, teamId: state.teamId, name: state.name, deletedAt: command.now },
          },
        ];
    }
  },
};
