import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

export const contactPropertyTypes = ["string", "number"] as const;
export type ContactPropertyType = (typeof contactPropertyTypes)[number];

/** A property value as a contact or a fallback holds it; its type is the property's. */
export const ContactPropertyValue = z.union([z.string(), z.number()]);
export type ContactPropertyValue = z.infer<typeof ContactPropertyValue>;

export const ContactPropertyCreated = eventSchema("ContactPropertyCreated", {
  propertyId: z.uuid(),
  teamId: z.uuid(),
  key: z.string(),
  type: z.enum(contactPropertyTypes),
  fallbackValue: ContactPropertyValue.nullable(),
  createdAt: z.string(),
});

/** Only the fallback changes: key and type are fixed at creation (docs/wire-compatibility.md §6.9). */
export const ContactPropertyUpdated = eventSchema("ContactPropertyUpdated", {
  propertyId: z.uuid(),
  fallbackValue: ContactPropertyValue.nullable(),
  updatedAt: z.string(),
});

export const ContactPropertyDeleted = eventSchema("ContactPropertyDeleted", {
  propertyId: z.uuid(),
  teamId: z.uuid(),
  key: z.string(),
  deletedAt: z.string(),
});

export const ContactPropertyEvent = eventUnion([ContactPropertyCreated, ContactPropertyUpdated, ContactPropertyDeleted]);
export type ContactPropertyEvent = z.infer<typeof ContactPropertyEvent>;
