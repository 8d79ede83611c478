import { z } from "zod";
import { CONTACT_NAME_MAX, topicSubscriptions } from "@tidings/domain";
import { emailAddressText } from "./documentedText.js";
import { wireTimestampText } from "../wireTimestamp.js";

/** Wire schemas shared by the contact routes and their legacy `/audiences/:id/contacts` twins. */
export const idOrEmailParam = z.string().min(1).max(320).describe("The contact's id or email address.");

export const propertyValues = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .describe("Values by contact property key; each must match its property's type. Null clears a value.");

export const topicChoice = z.object({ id: z.uuid(), subscription: z.enum(topicSubscriptions) });

// The domain checks the names' length (see documentedText.ts).
const name = z.string().meta({ maxLength: CONTACT_NAME_MAX }).nullable().optional();

export const createContactBody = z.object({
  email: emailAddressText().describe("The contact's address; one contact per address and team."),
  first_name: name,
  last_name: name,
  unsubscribed: z.boolean().optional().describe("True: unsubscribed from every broadcast."),
  properties: propertyValues.optional(),
  segments: z
    .array(z.object({ id: z.uuid() }))
    .optional()
    .describe("Segments to add the contact to."),
  topics: z.array(topicChoice).optional().describe("The contact's own topic subscriptions."),
});

export const updateContactBody = z.object({
  first_name: name.describe("Null clears it."),
  last_name: name.describe("Null clears it."),
  unsubscribed: z.boolean().optional(),
  properties: propertyValues.optional(),
});

export const contactItem = z.object({
  id: z.uuid(),
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  created_at: wireTimestampText(),
  unsubscribed: z.boolean(),
});

export const contact = contactItem.extend({
  object: z.literal("contact"),
  properties: z.record(
    z.string(),
    z.union([z.object({ type: z.literal("string"), value: z.string() }), z.object({ type: z.literal("number"), value: z.number() })]),
  ),
});

export const contactReference = z.object({ object: z.literal("contact"), id: z.uuid() });
export const contactDeleted = z.object({ object: z.literal("contact"), contact: z.string(), deleted: z.literal(true) });
