import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";
import { ContactPropertyValue } from "../contactproperty/events.js";

export const topicSubscriptions = ["opt_in", "opt_out"] as const;
export type TopicSubscription = (typeof topicSubscriptions)[number];

export const ContactTopicChoice = z.object({ topicId: z.uuid(), subscription: z.enum(topicSubscriptions) });
export type ContactTopicChoice = z.infer<typeof ContactTopicChoice>;

/** The person: every field here is personal data, erased with the contact's stream (ContactErased). */
const Person = {
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  unsubscribed: z.boolean(),
  /** The contact's own values by property key; a key absent here renders the property's fallback. */
  properties: z.record(z.string(), ContactPropertyValue),
};

/** `contact.created` (docs/wire-compatibility.md §8.1). Segments and topics given on create come with it. */
export const ContactCreated = eventSchema("ContactCreated", {
  contactId: z.uuid(),
  teamId: z.uuid(),
  ...Person,
  segmentIds: z.array(z.uuid()),
  topics: z.array(ContactTopicChoice),
  createdAt: z.string(),
});

/** `contact.updated`: the contact's fields after the change, whole, so a reader needs no earlier event. */
export const ContactUpdated = eventSchema("ContactUpdated", { contactId: z.uuid(), teamId: z.uuid(), ...Person, updatedAt: z.string() });

export const ContactAddedToSegment = eventSchema("ContactAddedToSegment", {
  contactId: z.uuid(),
  teamId: z.uuid(),
  segmentId: z.uuid(),
  addedAt: z.string(),
});

export const ContactRemovedFromSegment = eventSchema("ContactRemovedFromSegment", {
  contactId: z.uuid(),
  teamId: z.uuid(),
  segmentId: z.uuid(),
  removedAt: z.string(),
});

/** `contact.topics.updated`: the choices this change made, not the whole set. */
export const ContactTopicsUpdated = eventSchema("ContactTopicsUpdated", {
  contactId: z.uuid(),
  teamId: z.uuid(),
  topics: z.array(ContactTopicChoice),
  updatedAt: z.string(),
});

/**
 * `contact.deleted`. It lives in its own stream (`contacterasure-<id>`) because the contact's stream is
 * deleted with it: a replay then shows that this contact existed and was erased, and nothing of who it
 * was. Ids only; the segment and topic ids tell the read models which rows to drop.
 */
export const ContactErased = eventSchema("ContactErased", {
  contactId: z.uuid(),
  teamId: z.uuid(),
  segmentIds: z.array(z.uuid()),
  topicIds: z.array(z.uuid()),
  erasedAt: z.string(),
});
export type ContactErased = z.infer<typeof ContactErased>;

export const ContactEvent = eventUnion([
  ContactCreated,
  ContactUpdated,
  ContactAddedToSegment,
  ContactRemovedFromSegment,
  ContactTopicsUpdated,
]);
export type ContactEvent = z.infer<typeof ContactEvent>;
