import type { ContactPropertyEvent, ContactPropertyType } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { handlersOf, type EventData } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

/** Contact properties as GET and list show them (docs/wire-compatibility.md §6.9). */
export const contactPropertiesProjection = {
  name: "contact_properties",
  version: 1,
  tables: {
    contact_properties: teamResourceTable({
      columns: {
        key: { type: "text" },
        type: { type: "text", ...holds<ContactPropertyType>() },
        fallback_value: {
          type: "jsonb",
          nullable: true,
          ...holds<NonNullable<EventData<ContactPropertyEvent, "ContactPropertyCreated">["fallbackValue"]>>(),
        },
        created_at: { type: "timestamptz" },
      },
    }),
  },
  handlers: handlersOf<ContactPropertyEvent>({
    ContactPropertyCreated(data, context) {
      context.upsert("contact_properties", {
        id: data.propertyId,
        team_id: data.teamId,
        key: data.key,
        type: data.type,
        fallback_value: data.fallbackValue,
        created_at: data.createdAt,
      });
    },
    ContactPropertyUpdated(data, context) {
      context.update("contact_properties", { id: data.propertyId }, { fallback_value: data.fallbackValue });
    },
    ContactPropertyDeleted(data, context) {
      context.delete("contact_properties", { id: data.propertyId });
    },
  }),
} satisfies Projection;
