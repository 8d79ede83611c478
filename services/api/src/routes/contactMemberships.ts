import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { Database } from "@tidings/postgres";
import type { ApiRoutes } from "../app.js";
import { addContactToSegment, existingContact, removeContactFromSegment, updateContactTopics } from "@tidings/audience";
import { listQuerySchema, listSchema, type ListPage, type PageRequest } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { listContactSegments } from "../queries/segments.js";
import { listContactTopics } from "../queries/topics.js";
import { ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { idOrEmailParam, topicChoice } from "./contactSchemas.js";
import { wireTimestampText } from "../wireTimestamp.js";

const params = z.object({ idOrEmail: idOrEmailParam });
const segmentParams = params.extend({ segmentId: z.string().min(1).max(255).describe("The segment's id.") });
const segmentItem = z.object({ id: z.uuid(), name: z.string(), created_at: wireTimestampText() });
const topicItem = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  subscription: z.enum(["opt_in", "opt_out"]),
});

/**
 * docs/wire-compatibility.md §6.8: the SDK sends a bare array, the OpenAPI document `{topics: […]}`; both are accepted. At
 * most one choice per topic counts: the last.
 */
const topicsBody = z.union([z.array(topicChoice), z.object({ topics: z.array(topicChoice) })]);

/** A contact's segments (`/contacts/:idOrEmail/segments[/:segmentId]`) and topics (`/contacts/:idOrEmail/topics`). */
export function contactMembershipRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);
  /** A page of what an existing contact belongs to; a contact that does not exist is not found. */
  const memberships = async <Item>(
    request: FastifyRequest,
    idOrEmail: string,
    page: PageRequest,
    list: (database: Database, teamId: string, contactId: string, page: PageRequest) => Promise<ListPage<Item>>,
  ) => {
    const { teamId } = requireAuth(request);
    const { contactId } = await existingContact(services.store, teamId, idOrEmail);
    return list(services.database, teamId, contactId, page);
  };
  return (app) => {
    app.get(
      "/contacts/:idOrEmail/segments",
      { schema: { tags: ["contacts"], params, querystring: listQuerySchema(), response: { 200: listSchema(segmentItem) } } },
      async (request, reply) => ok(reply, await memberships(request, request.params.idOrEmail, request.query, listContactSegments)),
    );

    app.post(
      "/contacts/:idOrEmail/segments/:segmentId",
      { schema: { tags: ["contacts"], params: segmentParams, response: { 200: z.object({ id: z.uuid() }) } } },
      async (request, reply) => {
        const { idOrEmail, segmentId } = request.params;
        await write(request, (auth, metadata) => addContactToSegment(services, auth.teamId, idOrEmail, segmentId, metadata));
        return ok(reply, { id: segmentId });
      },
    );

    app.delete(
      "/contacts/:idOrEmail/segments/:segmentId",
      { schema: { tags: ["contacts"], params: segmentParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }) } } },
      async (request, reply) => {
        const { idOrEmail, segmentId } = request.params;
        await write(request, (auth, metadata) => removeContactFromSegment(services, auth.teamId, idOrEmail, segmentId, metadata));
        return ok(reply, { id: segmentId, deleted: true as const });
      },
    );

    app.get(
      "/contacts/:idOrEmail/topics",
      { schema: { tags: ["contacts"], params, querystring: listQuerySchema(), response: { 200: listSchema(topicItem) } } },
      async (request, reply) => ok(reply, await memberships(request, request.params.idOrEmail, request.query, listContactTopics)),
    );

    app.patch(
      "/contacts/:idOrEmail/topics",
      { schema: { tags: ["contacts"], params, body: topicsBody, response: { 200: z.object({ id: z.uuid() }) } } },
      async (request, reply) => {
        const choices = Array.isArray(request.body) ? request.body : request.body.topics;
        const topics = choices.map((t) => ({ topicId: t.id, subscription: t.subscription }));
        const result = await write(request, (auth, metadata) =>
          updateContactTopics(services, auth.teamId, request.params.idOrEmail, topics, metadata),
        );
        return ok(reply, { id: result.id });
      },
    );
  };
}
