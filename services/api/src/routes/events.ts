import { z } from "zod";
import { TidingsError } from "@tidings/core";
import { EVENT_NAME_MAX, eventFieldTypes } from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { createEventDefinition, deleteEventDefinition, updateEventDefinition } from "../handlers/eventDefinitions.js";
import { sendCustomEvent } from "../handlers/sendCustomEvent.js";
import { listQuerySchema } from "../pagination.js";
import { getEventDefinition, listEventDefinitions } from "../queries/eventDefinitions.js";
import { accepted, created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { emailAddressText } from "./documentedText.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { teamReads } from "./readRoutes.js";

const tags = ["events"];
const params = z.object({ idOrName: z.string().min(1).max(EVENT_NAME_MAX).describe("The event's id or name, URL-encoded.") });
// The domain checks the name and the fields (see documentedText.ts); `.meta()` documents its rules.
const schema = z
  .record(z.string().meta({ pattern: "^[A-Za-z0-9_-]{1,100}$" }), z.enum(eventFieldTypes))
  .nullable()
  .describe("A flat map of payload field to `string`, `number`, `boolean` or `date`.");
const eventName = z
  .string()
  .meta({ pattern: "^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$", maxLength: EVENT_NAME_MAX })
  .describe("A dotted name such as `user.signed_up`; `resend:` and `tidings:` are reserved.");

const createBody = z.object({ name: eventName, schema: schema.optional() });
const updateBody = z.object({ schema });
const sendBody = z
  .object({
    event: z.string().min(1).describe("The name of a defined event."),
    contact_id: z.string().optional().describe("The contact the event is about; give this or `email`."),
    email: emailAddressText().optional().describe("The contact's email; a contact is created for an email the team does not have."),
    payload: z.record(z.string(), z.unknown()).optional().describe("The event's data, checked against its schema."),
  })
  // The route checks that exactly one is given, with a message naming both.
  .meta({ oneOf: [{ required: ["contact_id"] }, { required: ["email"] }] });

const event = z.object({
  object: z.literal("event"),
  id: z.uuid(),
  name: z.string(),
  schema: z.record(z.string(), z.string()).nullable(),
  created_at: wireTimestampText(),
  updated_at: wireTimestampText().nullable(),
});
const listItem = event.omit({ object: true });
const reference = z.object({ object: z.literal("event"), id: z.uuid() });
const deleted = reference.extend({ deleted: z.literal(true) });
const sent = z.object({ object: z.literal("event"), event: z.string() });

/**
 * `/events` (docs/wire-compatibility.md §6.15): custom event definitions, and `POST /events/send`, which records one event
 * for a contact and answers 202, waiting for the read models only when it created the contact: the event
 * itself shows nowhere, and the automations it starts run later. `POST /events/send` is registered as a literal path, so it wins over
 * `/events/:idOrName` (docs/wire-compatibility.md §1.3).
 */
export function eventRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);

  return (app) => {
    app.post("/events", { schema: { tags, body: createBody, response: { 201: reference } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) =>
        createEventDefinition(services, auth.teamId, request.body.name, request.body.schema ?? null, metadata),
      );
      return created(reply, { object: "event" as const, id: result.id });
    });

    app.post(
      "/events/send",
      { config: { idempotency: true }, schema: { tags, body: sendBody, response: { 202: sent } } },
      async (request, reply) => {
        const { event: name, contact_id, email, payload } = request.body;
        if ((contact_id === undefined) === (email === undefined))
          throw new TidingsError("validation_error", "Give exactly one of `contact_id` and `email`.");
        // Only a contact the send created is readable afterwards; the event itself shows nowhere to wait for.
        await write(request, async (auth, metadata) => {
          const input = { event: name, contactId: contact_id, email, payload: payload ?? {} };
          return { position: (await sendCustomEvent(services, auth.teamId, input, metadata)).contactCreated };
        });
        return accepted(reply, { object: "event" as const, event: name });
      },
    );

    const reads = teamReads(app, services.database, tags);
    reads.list("/events", listQuerySchema(), listItem, async (database, teamId, query) => {
      const page = await listEventDefinitions(database, teamId, query);
      return { ...page, data: page.data.map(({ object: _, ...item }) => item) };
    });

    app.get("/events/:idOrName", { schema: { tags, params, response: { 200: event } } }, async (request, reply) =>
      ok(reply, await reads.one(request, getEventDefinition, request.params.idOrName, "Event not found")),
    );

    app.patch("/events/:idOrName", { schema: { tags, params, body: updateBody, response: { 200: reference } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) =>
        updateEventDefinition(services, auth.teamId, request.params.idOrName, request.body.schema, metadata),
      );
      return ok(reply, { object: "event" as const, id: result.id });
    });

    app.delete("/events/:idOrName", { schema: { tags, params, response: { 200: deleted } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) =>
        deleteEventDefinition(services, auth.teamId, request.params.idOrName, metadata),
      );
      return ok(reply, { object: "event" as const, id: result.id, deleted: true as const });
    });
  };
}
