import type { EventDefinitionEvent } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { handlersOf, type EventData } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

/** Custom event definitions as `GET /events` shows them (docs/wire-compatibility.md §6.15). Sends fold the stream instead. */
export const eventDefinitionsProjection = {
  name: "event_definitions",
  version: 1,
  tables: {
    event_definitions: teamResourceTable({
      columns: {
        name: { type: "text" },
        schema: {
          type: "jsonb",
          nullable: true,
          ...holds<NonNullable<EventData<EventDefinitionEvent, "EventDefinitionCreated">["schema"]>>(),
        },
        created_at: { type: "timestamptz" },
        updated_at: { type: "timestamptz", nullable: true },
      },
      indexes: { by_name: "(team_id, name)" },
    }),
  },
  handlers: handlersOf<EventDefinitionEvent>({
    EventDefinitionCreated(data, context) {
      context.upsert("event_definitions", {
        id: data.eventDefId,
        team_id: data.teamId,
        name: data.name,
        schema: data.schema,
        created_at: data.createdAt,
        updated_at: null,
      });
    },
    EventDefinitionUpdated(data, context) {
      context.update("event_definitions", { id: data.eventDefId }, { schema: data.schema, updated_at: data.updatedAt });
    },
    EventDefinitionDeleted(data, context) {
      context.delete("event_definitions", { id: data.eventDefId });
    },
  }),
} satisfies Projection;
