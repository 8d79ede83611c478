import { z } from "zod";
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

/** `contact.created` (reference §8.1). Segments and topics given on create come with it. */
export const ContactCreated = z.object({
  type: z.literal("ContactCreated"),
  data: z.object({
    contactId: z.uuid(),
    teamId: z.uuid(),
    ...Person,
    segmentIds: z.array(z.uuid()),
    topics: z.array(ContactTopicChoice),
    createdAt: z.string(),
  }),
});

/** `contact.updated`: the contact's fields after the change, whole, so a reader needs no earlier event. */
export const ContactUpdated = z.object({
  type: z.literal("ContactUpdated"),
  data: z.object({ contactId: z.uuid(), teamId: z.uuid(), ...Person, updatedAt: z.string() }),
});

export const ContactAddedToSegment = z.object({
  type: z.literal("ContactAddedToSegment"),
  data: z.object({ contactId: z.uuid(), teamId: z.uuid(), segmentId: z.uuid(), addedAt: z.string() }),
});

export const ContactRemovedFromSegment = z.object({
  type: z.literal("ContactRemovedFromSegment"),
  data: z.object({ contactId: z.uuid(), teamId: z.uuid(), segmentId: z.uuid(), removedAt: z.string() }),
});

/** `contact.topics.updated`: the choices this change made, not the whole set. */
export const ContactTopicsUpdated = z.object({
  type: z.literal("ContactTopicsUpdated"),
  data: z.object({ contactId: z.uuid(), teamId: z.uuid(), topics: z.array(ContactTopicChoice), updatedAt: z.string() }),
});

/**
 * `contact.deleted`. It lives in its own stream (`contacterasure-<id>`) because the contact's stream is
 * deleted with it: a replay then shows that this contact existed and was erased, and nothing of who it
 * was. Ids only; the segment and topic ids tell the read models which rows to drop.
 */
export const ContactErased = z.object({
  type: z.literal("ContactErased"),
  data: z.object({
    contactId: z.uuid(),
    teamId: z.uuid(),
    segmentIds: z.array(z.uuid()),
    topicIds: z.array(z.uuid()),
    erasedAt: z.string(),
  }),
});
export type ContactErased = z.infer<typeof ContactErased>;

export const ContactEvent = z.discriminatedUnion("type", [ContactCreated, ContactUpdated, ContactAddedToSegment, ContactRemovedFromSegment, ContactTopicsUpdated]);
export type ContactEvent = z.infer<typeof ContactEvent>;
