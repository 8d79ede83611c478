import { z } from "zod";
import type { ApiRoutes } from "../app.js";
import { createSegment, deleteSegment, renameSegment } from "@tidings/audience";
import { listQuerySchema } from "../pagination.js";
import { getSegment, listSegments } from "../queries/segments.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { teamReads } from "./readRoutes.js";

const params = z.object({ id: z.string().min(1).max(255).describe("The segment's id.") });
const body = z.object({ name: z.string().describe("The segment's name, at most 255 characters.") });
const item = z.object({ id: z.uuid(), name: z.string(), created_at: wireTimestampText() });

/**
 * `/segments` (docs/wire-compatibility.md §6.7), and `/audiences`, the same resource under its former name: the SDK's
 * `audiences` calls `/segments`, other clients may still call `/audiences`, whose objects say `audience`.
 */
export function segmentRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);
  const routesAt =
    (prefix: "/segments" | "/audiences", object: "segment" | "audience"): ApiRoutes =>
    (app) => {
      const tags = [prefix.slice(1)];
      const reference = z.object({ object: z.literal(object), id: z.uuid() });

      app.post(prefix, { schema: { tags, body, response: { 201: reference.extend({ name: z.string() }) } } }, async (request, reply) => {
        const result = await write(request, (auth, metadata) => createSegment(services, auth.teamId, request.body.name, metadata));
        return created(reply, { object, id: result.id, name: request.body.name });
      });

      const reads = teamReads(app, services.database, tags);
      reads.list(prefix, listQuerySchema(), item, listSegments);

      app.get(
        `${prefix}/:id`,
        { schema: { tags, params, response: { 200: item.extend({ object: z.literal(object) }) } } },
        async (request, reply) => ok(reply, { object, ...(await reads.one(request, getSegment, request.params.id, "Audience not found")) }),
      );

      app.patch(`${prefix}/:id`, { schema: { tags, params, body, response: { 200: reference } } }, async (request, reply) => {
        const result = await write(request, (auth, metadata) =>
          renameSegment(services, auth.teamId, request.params.id, request.body.name, metadata),
        );
        return ok(reply, { object, id: result.id });
      });

      app.delete(
        `${prefix}/:id`,
        { schema: { tags, params, response: { 200: z.object({ object: z.literal(object), id: z.string(), deleted: z.literal(true) }) } } },
        async (request, reply) => {
          const result = await write(request, (auth, metadata) => deleteSegment(services, auth.teamId, request.params.id, metadata));
          return ok(reply, { object, id: result.id, deleted: true as const });
        },
      );
    };
  return async (app) => {
    await routesAt("/segments", "segment")(app);
    await routesAt("/audiences", "audience")(app);
  };
}
