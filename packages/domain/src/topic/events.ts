import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";
import { topicSubscriptions } from "../contact/events.js";

export const topicVisibilities = ["public", "private"] as const;
export type TopicVisibility = (typeof topicVisibilities)[number];

export const TopicCreated = eventSchema("TopicCreated", {
  topicId: z.uuid(),
  teamId: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  /** What a contact who never chose gets; fixed for the topic's life (docs/wire-compatibility.md §6.13). */
  defaultSubscription: z.enum(topicSubscriptions),
  visibility: z.enum(topicVisibilities),
  createdAt: z.string(),
});

export const TopicUpdated = eventSchema("TopicUpdated", {
  topicId: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  visibility: z.enum(topicVisibilities),
  updatedAt: z.string(),
});

export const TopicDeleted = eventSchema("TopicDeleted", { topicId: z.uuid(), teamId: z.uuid(), deletedAt: z.string() });

export const TopicEvent = eventUnion([TopicCreated, TopicUpdated, TopicDeleted]);
export type TopicEvent = z.infer<typeof TopicEvent>;
