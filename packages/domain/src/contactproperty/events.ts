import { z } from "zod";

export const contactPropertyTypes = ["string", "number"] as const;
export type ContactPropertyType = (typeof contactPropertyTypes)[number];

/** A property value as a contact or a fallback holds it; its type is the property's. */
export const ContactPropertyValue = z.union([z.string(), z.number()]);
export type ContactPropertyValue = z.infer<typeof ContactPropertyValue>;

export const ContactPropertyCreated = z.object({
  type: z.literal("ContactPropertyCreated"),
  data: z.object({
    propertyId: z.uuid(),
    teamId: z.uuid(),
    key: z.string(),
    type: z.enum(contactPropertyTypes),
    fallbackValue: ContactPropertyValue.nullable(),
    createdAt: z.string(),
  }),
});

/** Only the fallback changes: key and type are fixed at creation (reference §6.9). */
export const ContactPropertyUpdated = z.object({
  type: z.literal("ContactPropertyUpdated"),
  data: z.object({ propertyId: z.uuid(), fallbackValue: ContactPropertyValue.nullable(), updatedAt: z.string() }),
});

export const ContactPropertyDeleted = z.object({
  type: z.literal("ContactPropertyDeleted"),
  data: z.object({ propertyId: z.uuid(), teamId: z.uuid(), key: z.string(), deletedAt: z.string() }),
});

export const ContactPropertyEvent = z.discriminatedUnion("type", [ContactPropertyCreated, ContactPropertyUpdated, ContactPropertyDeleted]);
export type ContactPropertyEvent = z.infer<typeof ContactPropertyEvent>;
