import type { ContactPropertyEvent, ContactPropertyType } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { eventDataOf, type EventData } from "../engine/eventData.js";
import { teamResourceTable } from "./teamResourceTable.js";

const dataOf = eventDataOf<ContactPropertyEvent>();

/** Contact properties as GET and list show them (reference §6.9). */
export const contactPropertiesProjection = {
  name: "contact_properties",
  version: 1,
  tables: {
    contact_properties: teamResourceTable({
      key: { type: "text" },
      type: { type: "text", ...holds<ContactPropertyType>() },
      fallback_value: { type: "jsonb", nullable: true, ...holds<NonNullable<EventData<ContactPropertyEvent, "ContactPropertyCreated">["fallbackValue"]>>() },
      created_at: { type: "timestamptz" },
    }),
  },
  handlers: {
    ContactPropertyCreated(event, context) {
      const data = dataOf<"ContactPropertyCreated">(event);
      context.upsert("contact_properties", {
        id: data.propertyId,
        team_id: data.teamId,
        key: data.key,
        type: data.type,
        fallback_value: data.fallbackValue,
        created_at: data.createdAt,
      });
    },
    ContactPropertyUpdated(event, context) {
      const data = dataOf<"ContactPropertyUpdated">(event);
      context.update("contact_properties", { id: data.propertyId }, { fallback_value: data.fallbackValue });
    },
    ContactPropertyDeleted(event, context) {
      context.delete("contact_properties", { id: dataOf<"ContactPropertyDeleted">(event).propertyId });
    },
  },
} satisfies Projection;
