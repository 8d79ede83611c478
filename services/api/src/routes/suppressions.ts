import { z } from "zod";
import { TidingsError } from "@tidings/core";
import { SUPPRESSION_BATCH_MAX, suppressionOrigins } from "@tidings/domain";
import type { Position } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import type { ApiRoutes } from "../app.js";
import { addSuppression, checkSuppressionEmails, removeSuppression, type ChangedSuppression } from "../handlers/suppressions.js";
import { listQuerySchema } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { getSuppression, listSuppressions } from "../queries/suppressions.js";
import { created, ok } from "../replies.js";
import { requestMetadata } from "../requestMetadata.js";
import { callerWrites, settle } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { emailAddressText } from "./documentedText.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { teamReads } from "./readRoutes.js";

const tags = ["suppressions"];
const params = z.object({ idOrEmail: z.string().min(1).max(320).describe("The suppression's id or its email address.") });
const tooMany = (field: string) => `\`${field}\` must hold at most ${SUPPRESSION_BATCH_MAX} items.`;
const emails = z.array(emailAddressText()).min(1).max(SUPPRESSION_BATCH_MAX, tooMany("emails"));
const removeBody = z.union([
  z.object({ emails }),
  z.object({ ids: z.array(z.string()).min(1).max(SUPPRESSION_BATCH_MAX, tooMany("ids")) }),
]);

const item = z.object({
  id: z.uuid(),
  email: z.string(),
  origin: z.enum(suppressionOrigins),
  source_id: z.uuid().nullable(),
  created_at: wireTimestampText(),
});
const reference = z.object({ object: z.literal("suppression"), id: z.uuid() });
const removed = z.object({ object: z.literal("suppression"), id: z.string(), deleted: z.boolean() });

/** `/suppressions` (docs/wire-compatibility.md §6.18): manual additions and removals; bounces arrive from the delivery saga. */
export function suppressionRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);
  return (app) => {
    app.post(
      "/suppressions",
      { schema: { tags, body: z.object({ email: emailAddressText() }), response: { 201: reference } } },
      async (request, reply) => {
        const result = await write(request, (auth, metadata) => addSuppression(services, auth.teamId, request.body.email, metadata));
        return created(reply, { object: "suppression" as const, id: result.id });
      },
    );

    app.post(
      "/suppressions/batch/add",
      { schema: { tags, body: z.object({ emails }), response: { 201: z.object({ data: z.array(reference) }) } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        checkSuppressionEmails(services, auth.teamId, request.body.emails, (i) => `emails[${i}]`);
        const metadata = requestMetadata(request, auth, services.clock);
        const results: ChangedSuppression[] = [];
        for (const email of request.body.emails) results.push(await addSuppression(services, auth.teamId, email, metadata));
        await settle(
          services,
          results.map((r) => r.position),
        );
        return created(reply, { data: results.map((r) => ({ object: "suppression" as const, id: r.id })) });
      },
    );

    app.post(
      "/suppressions/batch/remove",
      { schema: { tags, body: removeBody, response: { 200: z.object({ data: z.array(removed) }) } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        const metadata = requestMetadata(request, auth, services.clock);
        const names = "emails" in request.body ? request.body.emails : request.body.ids;
        const data: z.infer<typeof removed>[] = [];
        const positions: (Position | undefined)[] = [];
        for (const idOrEmail of names) {
          try {
            const result = await removeSuppression(services, auth.teamId, idOrEmail, metadata);
            positions.push(result.position);
            data.push({ object: "suppression", id: result.id, deleted: true });
          } catch (error) {
            // One address not on the list does not fail the others: it is reported as not deleted. A list
            // that cannot be searched yet fails the request, which the client sends again.
            const notOnList =
              (error instanceof TidingsError && error.code !== "service_unavailable") ||
              (error as { name?: string }).name === "DomainRejection";
            if (!notOnList) throw error;
            data.push({ object: "suppression", id: idOrEmail, deleted: false });
          }
        }
        await settle(services, positions);
        return ok(reply, { data });
      },
    );

    const reads = teamReads(app, services.database, tags);
    const findSuppression = (database: Database, teamId: string, idOrEmail: string) =>
      getSuppression(database, teamId, idOrEmail, services.hashSubject);
    reads.list("/suppressions", listQuerySchema({ origin: z.enum(suppressionOrigins).optional() }), item, listSuppressions);

    app.get(
      "/suppressions/:idOrEmail",
      { schema: { tags, params, response: { 200: item.extend({ object: z.literal("suppression") }) } } },
      async (request, reply) => {
        const found = await reads.one(request, findSuppression, request.params.idOrEmail, "Suppression not found");
        return ok(reply, { object: "suppression" as const, ...found });
      },
    );

    app.delete("/suppressions/:idOrEmail", { schema: { tags, params, response: { 200: removed } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) => removeSuppression(services, auth.teamId, request.params.idOrEmail, metadata));
      return ok(reply, { object: "suppression" as const, id: result.id, deleted: true });
    });
  };
}
