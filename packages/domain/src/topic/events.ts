import { z } from "zod";
import { topicSubscriptions } from "../contact/events.js";

export const topicVisibilities = ["public", "private"] as const;
export type TopicVisibility = (typeof topicVisibilities)[number];

export const TopicCreated = z.object({
  type: z.literal("TopicCreated"),
  data: z.object({
    topicId: z.uuid(),
    teamId: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    /** What a contact who never chose gets; fixed for the topic's life (reference §6.13). */
    defaultSubscription: z.enum(topicSubscriptions),
    visibility: z.enum(topicVisibilities),
    createdAt: z.string(),
  }),
});

export const TopicUpdated = z.object({
  type: z.literal("TopicUpdated"),
  data: z.object({ topicId: z.uuid(), name: z.string(), description: z.string().nullable(), visibility: z.enum(topicVisibilities), updatedAt: z.string() }),
});

export const TopicDeleted = z.object({
  type: z.literal("TopicDeleted"),
  data: z.object({ topicId: z.uuid(), teamId: z.uuid(), deletedAt: z.string() }),
});

export const TopicEvent = z.discriminatedUnion("type", [TopicCreated, TopicUpdated, TopicDeleted]);
export type TopicEvent = z.infer<typeof TopicEvent>;
