import { z } from "zod";
import { TidingsError } from "@tidings/core";
import type { Position } from "@tidings/eventstore";
import type { ApiRoutes } from "../app.js";
import { createContact, eraseContact, findSegment, updateContact } from "@tidings/audience";
import { listQuerySchema, listSchema } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { getContact, listContacts } from "../queries/contacts.js";
import { created, ok } from "../replies.js";
import { requestMetadata } from "../requestMetadata.js";
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
const listQuery = listQuerySchema({ segment_id: z.guid().optional().describe("Only the contacts of this segment.") });

const createErrors = { contact_exists: "The team has a contact with this email already." };

/**
 * `/contacts` (reference §6.8), and the legacy paths the SDK still calls with an `audienceId`:
 * `/audiences/:audienceId/contacts[/:idOrEmail]` and `/segments/:id/contacts`. A legacy create adds the
 * contact to that audience; the legacy get, update and delete address the contact as the modern ones do.
 */
export function contactRoutes(services: ApiServices): ApiRoutes {
  const settled = async (position: Position | undefined) => {
    if (position) await services.waitFor(position);
  };
  return (app) => {
    const create = async (
      teamId: string,
      body: z.infer<typeof createContactBody>,
      segmentIds: string[],
      metadata: ReturnType<typeof requestMetadata>,
    ) => {
      const result = await createContact(services, teamId, newContact(body, segmentIds), metadata);
      await settled(result.position);
      return { object: "contact" as const, id: result.id };
    };
    const get = async (teamId: string, idOrEmail: string) => {
      const found = await getContact(services.database, teamId, idOrEmail);
      if (!found) throw new TidingsError("not_found", "Contact not found");
      return found;
    };
    const update = async (
      teamId: string,
      idOrEmail: string,
      body: z.infer<typeof updateContactBody>,
      metadata: ReturnType<typeof requestMetadata>,
    ) => {
      const { changes, properties } = contactChanges(body);
      const result = await updateContact(services, teamId, idOrEmail, changes, properties, metadata);
      await settled(result.position);
      return { object: "contact" as const, id: result.id };
    };
    const remove = async (teamId: string, idOrEmail: string, metadata: ReturnType<typeof requestMetadata>) => {
      await settled((await eraseContact(services, teamId, idOrEmail, metadata)).position);
      // Reference §6.8: the path value is echoed, id or email, whether or not there was a contact.
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
      async (request, reply) => {
        const auth = requireAuth(request);
        return created(reply, await create(auth.teamId, request.body, [], requestMetadata(request, auth, services.clock)));
      },
    );

    app.get(
      "/contacts",
      { schema: { tags, querystring: listQuery, response: { 200: listSchema(contactItem) } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        return ok(reply, await listContacts(services.database, auth.teamId, { ...request.query, segmentId: request.query.segment_id }));
      },
    );

    app.get("/contacts/:idOrEmail", { schema: { tags, params, response: { 200: contact } } }, async (request, reply) => {
      const auth = requireAuth(request);
      return ok(reply, await get(auth.teamId, request.params.idOrEmail));
    });

    app.patch(
      "/contacts/:idOrEmail",
      { schema: { tags, params, body: updateContactBody, response: { 200: contactReference } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        return ok(reply, await update(auth.teamId, request.params.idOrEmail, request.body, requestMetadata(request, auth, services.clock)));
      },
    );

    app.delete("/contacts/:idOrEmail", { schema: { tags, params, response: { 200: contactDeleted } } }, async (request, reply) => {
      const auth = requireAuth(request);
      return ok(reply, await remove(auth.teamId, request.params.idOrEmail, requestMetadata(request, auth, services.clock)));
    });

    app.get(
      "/segments/:id/contacts",
      { schema: { tags, params: segmentParams, querystring: listQuerySchema(), response: { 200: listSchema(contactItem) } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        await findSegment(services.store, auth.teamId, request.params.id);
        return ok(reply, await listContacts(services.database, auth.teamId, { ...request.query, segmentId: request.params.id }));
      },
    );

    const legacyList = z.object({ audienceId: legacyParams.shape.audienceId });
    app.post(
      "/audiences/:audienceId/contacts",
      { schema: { tags, params: legacyList, body: createContactBody, errors: createErrors, response: { 201: contactReference } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        return created(
          reply,
          await create(auth.teamId, request.body, [request.params.audienceId], requestMetadata(request, auth, services.clock)),
        );
      },
    );

    app.get(
      "/audiences/:audienceId/contacts",
      { schema: { tags, params: legacyList, querystring: listQuerySchema(), response: { 200: listSchema(contactItem) } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        await findSegment(services.store, auth.teamId, request.params.audienceId);
        return ok(reply, await listContacts(services.database, auth.teamId, { ...request.query, segmentId: request.params.audienceId }));
      },
    );

    app.get(
      "/audiences/:audienceId/contacts/:idOrEmail",
      { schema: { tags, params: legacyParams, response: { 200: contact } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        return ok(reply, await get(auth.teamId, request.params.idOrEmail));
      },
    );

    app.patch(
      "/audiences/:audienceId/contacts/:idOrEmail",
      { schema: { tags, params: legacyParams, body: updateContactBody, response: { 200: contactReference } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        return ok(reply, await update(auth.teamId, request.params.idOrEmail, request.body, requestMetadata(request, auth, services.clock)));
      },
    );

    app.delete(
      "/audiences/:audienceId/contacts/:idOrEmail",
      { schema: { tags, params: legacyParams, response: { 200: contactDeleted } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        return ok(reply, await remove(auth.teamId, request.params.idOrEmail, requestMetadata(request, auth, services.clock)));
      },
    );
  };
}
