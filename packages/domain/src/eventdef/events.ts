import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

export const eventFieldTypes = ["string", "number", "boolean", "date"] as const;
export type EventFieldType = (typeof eventFieldTypes)[number];

/** A flat map of payload field → type (docs/wire-compatibility.md §6.15); null when the event has none. */
export const EventSchema = z.record(z.string(), z.enum(eventFieldTypes)).nullable();
export type EventSchema = z.infer<typeof EventSchema>;

export const EventDefinitionCreated = eventSchema("EventDefinitionCreated", {
  eventDefId: z.uuid(),
  teamId: z.uuid(),
  name: z.string(),
  schema: EventSchema,
  createdAt: z.string(),
});

export const EventDefinitionUpdated = eventSchema("EventDefinitionUpdated", {
  eventDefId: z.uuid(),
  schema: EventSchema,
  updatedAt: z.string(),
});

export const EventDefinitionDeleted = eventSchema("EventDefinitionDeleted", {
  eventDefId: z.uuid(),
  teamId: z.uuid(),
  name: z.string(),
  deletedAt: z.string(),
});

export const EventDefinitionEvent = eventUnion([EventDefinitionCreated, EventDefinitionUpdated, EventDefinitionDeleted]);
export type EventDefinitionEvent = z.infer<typeof EventDefinitionEvent>;

/**
 * One custom event sent for a contact (`POST /events/send`), in a stream of its own (`customevent-<id>`):
 * nothing else writes there, so the append never contends, and the bus forwards it to the automation runner.
 */
export const CustomEventReceived = eventSchema("CustomEventReceived", {
  receivedEventId: z.uuid(),
  teamId: z.uuid(),
  eventDefId: z.uuid(),
  name: z.string(),
  contactId: z.uuid(),
  payload: z.record(z.string(), z.unknown()),
  receivedAt: z.string(),
});
export type CustomEventReceived = z.infer<typeof CustomEventReceived>;

export const customEventStream = (receivedEventId: string) => `customevent-${receivedEventId}`;
