import { z } from "zod";
import { contactPropertyTypes as propertyTypeNames } from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { createContactProperty, deleteContactProperty, updateContactProperty } from "@tidings/audience";
import { listQuerySchema } from "../pagination.js";
import { getContactProperty, listContactProperties } from "../queries/contactProperties.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { teamReads } from "./readRoutes.js";

const tags = ["contact-properties"];
const params = z.object({ id: z.string().min(1).max(255).describe("The contact property's id.") });
const fallback = z.union([z.string(), z.number()]).nullable().describe("Rendered where a contact has no value; of the property's type.");

const createBody = z.object({
  key: z
    .string()
    .meta({ pattern: "^[A-Za-z0-9_]{1,50}$" })
    .describe("Letters, digits and underscores, at most 50; unique within the team, case-sensitive. The domain checks it."),
  type: z.enum(propertyTypeNames),
  fallback_value: fallback.optional(),
});
/** Key and type are fixed at creation (docs/wire-compatibility.md §6.9); only the fallback changes. */
const updateBody = z.object({ fallback_value: fallback });

const item = z.object({
  id: z.uuid(),
  key: z.string(),
  type: z.enum(propertyTypeNames),
  fallback_value: z.union([z.string(), z.number()]).nullable(),
  created_at: wireTimestampText(),
});
const reference = z.object({ object: z.literal("contact_property"), id: z.uuid() });

/** `/contact-properties` (docs/wire-compatibility.md §6.9). */
export function contactPropertyRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);
  return (app) => {
    app.post("/contact-properties", { schema: { tags, body: createBody, response: { 201: reference } } }, async (request, reply) => {
      const { key, type, fallback_value } = request.body;
      const result = await write(request, (auth, metadata) =>
        createContactProperty(services, auth.teamId, { key, type, fallbackValue: fallback_value ?? null }, metadata),
      );
      return created(reply, { object: "contact_property" as const, id: result.id });
    });

    const reads = teamReads(app, services.database, tags);
    reads.list("/contact-properties", listQuerySchema(), item, listContactProperties);

    app.get(
      "/contact-properties/:id",
      { schema: { tags, params, response: { 200: item.extend({ object: z.literal("contact_property") }) } } },
      async (request, reply) => ok(reply, await reads.one(request, getContactProperty, request.params.id, "Contact property not found")),
    );

    app.patch(
      "/contact-properties/:id",
      { schema: { tags, params, body: updateBody, response: { 200: reference } } },
      async (request, reply) => {
        const result = await write(request, (auth, metadata) =>
          updateContactProperty(services, auth.teamId, request.params.id, request.body.fallback_value, metadata),
        );
        return ok(reply, { object: "contact_property" as const, id: result.id });
      },
    );

    app.delete(
      "/contact-properties/:id",
      { schema: { tags, params, response: { 200: reference.extend({ deleted: z.literal(true) }) } } },
      async (request, reply) => {
        const result = await write(request, (auth, metadata) => deleteContactProperty(services, auth.teamId, request.params.id, metadata));
        return ok(reply, { object: "contact_property" as const, id: result.id, deleted: true as const });
      },
    );
  };
}
