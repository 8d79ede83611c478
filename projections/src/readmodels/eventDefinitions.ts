import type { EventDefinitionEvent } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { eventDataOf, type EventData } from "../engine/eventData.js";
import { teamResourceTable } from "./teamResourceTable.js";

const dataOf = eventDataOf<EventDefinitionEvent>();

/** Custom event definitions as `GET /events` shows them (reference §6.15). Sends fold the stream instead. */
export const eventDefinitionsProjection = {
  name: "event_definitions",
  version: 1,
  tables: {
    event_definitions: teamResourceTable(
      {
        name: { type: "text" },
        schema: { type: "jsonb", nullable: true, ...holds<NonNullable<EventData<EventDefinitionEvent, "EventDefinitionCreated">["schema"]>>() },
        created_at: { type: "timestamptz" },
        updated_at: { type: "timestamptz", nullable: true },
      },
      { by_name: "(team_id, name)" },
    ),
  },
  handlers: {
    EventDefinitionCreated(event, context) {
      const data = dataOf<"EventDefinitionCreated">(event);
      context.upsert("event_definitions", { id: data.eventDefId, team_id: data.teamId, name: data.name, schema: data.schema, created_at: data.createdAt, updated_at: null });
    },
    EventDefinitionUpdated(event, context) {
      const data = dataOf<"EventDefinitionUpdated">(event);
      context.update("event_definitions", { id: data.eventDefId }, { schema: data.schema, updated_at: data.updatedAt });
    },
    EventDefinitionDeleted(event, context) {
      context.delete("event_definitions", { id: dataOf<"EventDefinitionDeleted">(event).eventDefId });
    },
  },
} satisfies Projection;
