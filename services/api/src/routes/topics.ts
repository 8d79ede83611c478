import { z } from "zod";
import { TOPIC_DESCRIPTION_MAX, TOPIC_NAME_MAX, topicSubscriptions, topicVisibilities, type TopicFields } from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { createTopic, deleteTopic, updateTopic } from "@tidings/audience";
import { listQuerySchema } from "../pagination.js";
import { getTopic, listTopics } from "../queries/topics.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { teamReads } from "./readRoutes.js";

const tags = ["topics"];
const params = z.object({ id: z.string().min(1).max(255).describe("The topic's id.") });

const createBody = z.object({
  name: z.string().meta({ minLength: 1, maxLength: TOPIC_NAME_MAX }).describe(`At most ${TOPIC_NAME_MAX} characters.`),
  default_subscription: z.enum(topicSubscriptions).describe("What a contact who never chose gets; cannot be changed later."),
  description: z
    .string()
    .meta({ maxLength: TOPIC_DESCRIPTION_MAX })
    .nullable()
    .optional()
    .describe(`At most ${TOPIC_DESCRIPTION_MAX} characters.`),
  visibility: z.enum(topicVisibilities).optional().describe("Whether the preference page shows the topic; private by default."),
});

const immutable = "`default_subscription` cannot be changed after the topic is created.";
/** The SDK sends its whole options object, `id` included (docs/wire-compatibility.md §6.13); the id in the path wins. */
const updateBody = z
  .object({
    id: z.string().optional(),
    name: z.string().optional(),
    description: z.string().nullable().optional(),
    visibility: z.enum(topicVisibilities).optional(),
    // Taken only to be refused by name; `not: {}` tells a client it may not send them.
    default_subscription: z.unknown().optional().meta({ not: {} }).describe("Cannot be changed after the topic is created."),
    defaultSubscription: z.unknown().optional().meta({ not: {} }).describe("Cannot be changed after the topic is created."),
  })
  .refine((body) => body.default_subscription === undefined && body.defaultSubscription === undefined, {
    message: immutable,
    path: ["default_subscription"],
  });

const item = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  default_subscription: z.enum(topicSubscriptions),
  visibility: z.enum(topicVisibilities),
  created_at: wireTimestampText(),
});
const reference = z.object({ object: z.literal("topic"), id: z.uuid() });

/** `/topics` (docs/wire-compatibility.md §6.13). */
export function topicRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);
  return (app) => {
    app.post("/topics", { schema: { tags, body: createBody, response: { 201: reference } } }, async (request, reply) => {
      const { name, description, visibility, default_subscription } = request.body;
      const fields: TopicFields = { name, description: description ?? null, visibility: visibility ?? "private" };
      const { id } = await write(request, (auth, metadata) => createTopic(services, auth.teamId, fields, default_subscription, metadata));
      return created(reply, { object: "topic" as const, id });
    });

    const reads = teamReads(app, services.database, tags);
    reads.list("/topics", listQuerySchema(), item, listTopics);

    app.get(
      "/topics/:id",
      { schema: { tags, params, response: { 200: item.extend({ object: z.literal("topic") }) } } },
      async (request, reply) => {
        const found = await reads.one(request, getTopic, request.params.id, "Topic not found");
        return ok(reply, { object: "topic" as const, ...found });
      },
    );

    app.patch("/topics/:id", { schema: { tags, params, body: updateBody, response: { 200: reference } } }, async (request, reply) => {
      const { name, description, visibility } = request.body;
      const changes: Partial<TopicFields> = {};
      if (name !== undefined) changes.name = name;
      if (description !== undefined) changes.description = description;
      if (visibility !== undefined) changes.visibility = visibility;
      const { id } = await write(request, (auth, metadata) => updateTopic(services, auth.teamId, request.params.id, changes, metadata));
      return ok(reply, { object: "topic" as const, id });
    });

    app.delete(
      "/topics/:id",
      { schema: { tags, params, response: { 200: reference.extend({ deleted: z.literal(true) }) } } },
      async (request, reply) => {
        const { id } = await write(request, (auth, metadata) => deleteTopic(services, auth.teamId, request.params.id, metadata));
        return ok(reply, { object: "topic" as const, id, deleted: true as const });
      },
    );
  };
}
