import { z } from "zod";
import { TidingsError } from "@tidings/core";
import { eventTeamId } from "@tidings/projections";
import type { ApiRoutes } from "../app.js";
import { auditEventOf, auditEventSchema, pageOfEvents } from "../audit/auditEvents.js";
import { listQuerySchema, listSchema } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { pageAuditRefs } from "../queries/audit.js";
import { ok } from "../replies.js";
import type { ApiServices } from "../services.js";

const tags = ["audit"];
const resourceParams = z.object({
  id: z.string().min(1).max(320).describe("A resource id, an email address, or a request, correlation or causation id."),
});
const streamParams = z.object({
  stream: z
    .string()
    .max(300)
    .regex(/^[a-z]+-\S+$/, "`stream` must be a stream id such as `email-<id>`.")
    .describe("A stream id, `<category>-<id>`."),
});
const streamQuery = listQuerySchema({
  type: z
    .string()
    .max(1000)
    .regex(/^[A-Za-z]+(,[A-Za-z]+)*$/, "`type` must be event types separated by commas, such as `EmailQueued,EmailScheduled`.")
    .optional()
    .describe("Only the events of these types, comma-separated; the cursors then name events of these types."),
});
const page = listSchema(auditEventSchema);

/**
 * The audit API (docs/operations.md, For auditors): a full-access key's view of the events of its own
 * team. A resource's timeline comes from the audit index, a stream's from the store; neither shows an
 * event of another team, and both say 404 when the caller's team has none.
 */
export function auditRoutes(services: ApiServices): ApiRoutes {
  return (app) => {
    app.get(
      "/audit/resources/:id",
      {
        schema: {
          tags,
          summary: "The events that name a resource",
          params: resourceParams,
          querystring: listQuerySchema(),
          response: { 200: page },
        },
      },
      async (request, reply) => {
        const { teamId } = requireAuth(request);
        const refs = await pageAuditRefs(services.database, teamId, request.params.id, request.query);
        if (refs.data.length === 0 && request.query.after === undefined && request.query.before === undefined)
          throw new TidingsError("not_found", "No event of this team names this id");
        const data = await Promise.all(refs.data.map((ref) => auditEventOf(services.store, ref)));
        return ok(reply, { ...refs, data });
      },
    );

    app.get(
      "/audit/streams/:stream",
      {
        schema: { tags, summary: "The events of a stream", params: streamParams, querystring: streamQuery, response: { 200: page } },
      },
      async (request, reply) => {
        const { teamId } = requireAuth(request);
        const events = (await services.store.readStream(request.params.stream)).filter((e) => eventTeamId(e) === teamId);
        if (events.length === 0) throw new TidingsError("not_found", "Stream not found");
        const types = request.query.type?.split(",");
        return ok(reply, pageOfEvents(types ? events.filter((e) => types.includes(e.type)) : events, request.query));
      },
    );
  };
}
