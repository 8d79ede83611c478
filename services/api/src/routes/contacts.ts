import { z } from "zod";
import { TidingsError } from "@tidings/core";
import type { FastifyRequest } from "fastify";
import type { ApiRoutes } from "../app.js";
import { createContact, eraseContact, findSegment, updateContact } from "@tidings/audience";
import { listQuerySchema, listSchema, type PageRequest } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { reachCopies } from "../erasure/reachCopies.js";
import { getContact, listContacts } from "../queries/contacts.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { contactChanges, newContact } from "./contactBodies.js";
import {
  contact,
  contactDeleted,
  contactItem,
  contactReference,
  createContactBody,
  idOrEmailParam,
  updateContactBody,
} from "./contactSchemas.js";

const tags = ["contacts"];
const params = z.object({ idOrEmail: idOrEmailParam });
const segmentParams = z.object({ id: z.string().min(1).max(255).describe("The segment's (audience's) id.") });
const legacyParams = z.object({
  audienceId: z.string().min(1).max(255).describe("The audience's (segment's) id."),
  idOrEmail: idOrEmailParam,
});
const listQuery = listQuerySchema({
  segment_id: z.guid().optional().describe("Only the contacts of this segment."),
  search: z
    .string()
    .max(320)
    .optional()
    .describe("Tidings only: the contacts whose email, or first and last name, contain this text, in any case."),
});

const createErrors = { contact_exists: "The team has a contact with this email already." };

/**
 * `/contacts` (docs/wire-compatibility.md §6.8), and the legacy paths the SDK still calls with an `audienceId`:
 * `/audiences/:audienceId/contacts[/:idOrEmail]` and `/segments/:id/contacts`. A legacy create adds the
 * contact to that audience; the legacy get, update and delete address the contact as the modern ones do.
 */
export function contactRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);
  return (app) => {
    const create = async (request: FastifyRequest, body: z.infer<typeof createContactBody>, segmentIds: string[]) => {
      const { id } = await write(request, (auth, metadata) => createContact(services, auth.teamId, newContact(body, segmentIds), metadata));
      return { object: "contact" as const, id };
    };
    const get = async (request: FastifyRequest, idOrEmail: string) => {
      const found = await getContact(services.database, requireAuth(request).teamId, idOrEmail);
      if (!found) throw new TidingsError("not_found", "Contact not found");
      return found;
    };
    const update = async (request: FastifyRequest, idOrEmail: string, body: z.infer<typeof updateContactBody>) => {
      const { changes, properties } = contactChanges(body);
      const { id } = await write(request, (auth, metadata) =>
        updateContact(services, auth.teamId, idOrEmail, changes, properties, metadata),
      );
      return { object: "contact" as const, id };
    };
    /** A segment's contacts; a segment that does not exist is not found, rather than an empty list. */
    const segmentContacts = async (request: FastifyRequest, segmentId: string, page: PageRequest) => {
      const { teamId } = requireAuth(request);
      await findSegment(services.store, teamId, segmentId);
      return listContacts(services.database, teamId, { ...page, segmentId });
    };
    const remove = async (request: FastifyRequest, idOrEmail: string) => {
      // The erasure reaches every copy (docs/privacy.md): this request's row keeps no address, and earlier
      // ones naming the contact lose their bodies.
      request.logWithoutBodies = true;
      const { erased } = await write(request, (auth, metadata) => eraseContact(services, auth.teamId, idOrEmail, metadata));
      if (erased) {
        const copies = { database: services.database, waitFor: services.waitFor, requestLogs: request.server.requestLogs };
        await reachCopies(copies, requireAuth(request).teamId, erased.subjects, erased.contactId);
      }
      // docs/wire-compatibility.md §6.8: the path value is echoed, id or email, whether or not there was a contact.
      return { object: "contact" as const, contact: idOrEmail, deleted: true as const };
    };

    app.post(
      "/contacts",
      {
        schema: {
          tags,
          body: createContactBody,
          errors: { ...createErrors, not_found: "A segment or topic the body names does not exist." },
          response: { 201: contactReference },
        },
      },
      async (request, reply) => created(reply, await create(request, request.body, [])),
    );

    app.get(
      "/contacts",
      { schema: { tags, querystring: listQuery, response: { 200: listSchema(contactItem) } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        const { segment_id, search, ...page } = request.query;
        return ok(reply, await listContacts(services.database, auth.teamId, { ...page, segmentId: segment_id, search: search?.trim() }));
      },
    );

    app.get("/contacts/:idOrEmail", { schema: { tags, params, response: { 200: contact } } }, async (request, reply) =>
      ok(reply, await get(request, request.params.idOrEmail)),
    );

    app.patch(
      "/contacts/:idOrEmail",
      { schema: { tags, params, body: updateContactBody, response: { 200: contactReference } } },
      async (request, reply) => ok(reply, await update(request, request.params.idOrEmail, request.body)),
    );

    app.delete("/contacts/:idOrEmail", { schema: { tags, params, response: { 200: contactDeleted } } }, async (request, reply) =>
      ok(reply, await remove(request, request.params.idOrEmail)),
    );

    app.get(
      "/segments/:id/contacts",
      { schema: { tags, params: segmentParams, querystring: listQuerySchema(), response: { 200: listSchema(contactItem) } } },
      async (request, reply) => ok(reply, await segmentContacts(request, request.params.id, request.query)),
    );

    const legacyList = z.object({ audienceId: legacyParams.shape.audienceId });
    app.post(
      "/audiences/:audienceId/contacts",
      { schema: { tags, params: legacyList, body: createContactBody, errors: createErrors, response: { 201: contactReference } } },
      async (request, reply) => created(reply, await create(request, request.body, [request.params.audienceId])),
    );

    app.get(
      "/audiences/:audienceId/contacts",
      { schema: { tags, params: legacyList, querystring: listQuerySchema(), response: { 200: listSchema(contactItem) } } },
      async (request, reply) => ok(reply, await segmentContacts(request, request.params.audienceId, request.query)),
    );

    app.get(
      "/audiences/:audienceId/contacts/:idOrEmail",
      { schema: { tags, params: legacyParams, response: { 200: contact } } },
      async (request, reply) => ok(reply, await get(request, request.params.idOrEmail)),
    );

    app.patch(
      "/audiences/:audienceId/contacts/:idOrEmail",
      { schema: { tags, params: legacyParams, body: updateContactBody, response: { 200: contactReference } } },
      async (request, reply) => ok(reply, await update(request, request.params.idOrEmail, request.body)),
    );

    app.delete(
      "/audiences/:audienceId/contacts/:idOrEmail",
      { schema: { tags, params: legacyParams, response: { 200: contactDeleted } } },
      async (request, reply) => ok(reply, await remove(request, request.params.idOrEmail)),
    );
  };
}
