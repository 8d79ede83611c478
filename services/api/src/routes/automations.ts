import { z } from "zod";
import { TidingsError } from "@tidings/core";
import {
  AUTOMATION_NAME_MAX,
  automationStatuses,
  connectionTypes,
  runStatuses,
  runStepStatuses,
  stepTypes,
  type AutomationDefinition,
  type RunStatus,
} from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { createAutomation, deleteAutomation, duplicateAutomation, updateAutomation } from "../handlers/automations.js";
import { listQuerySchema, listSchema } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { getRun, listRuns } from "../queries/automationRuns.js";
import { getAutomation, listAutomations } from "../queries/automations.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { teamReads } from "./readRoutes.js";

const tags = ["automations"];
const params = z.object({ id: z.string().min(1).max(255).describe("The automation's id.") });
const runParams = params.extend({ runId: z.string().min(1).max(255).describe("The run's id.") });

const step = z.object({
  key: z
    .string()
    .meta({ pattern: "^[A-Za-z0-9_-]{1,100}$" })
    .describe("1 to 100 letters, digits, `_` or `-`, unique within the automation; connections name steps by it."),
  type: z.enum(stepTypes),
  config: z.record(z.string(), z.unknown()).default({}).describe("The step type's settings (docs/wire-compatibility.md §6.14)."),
});
const connection = z.object({ from: z.string(), to: z.string(), type: z.enum(connectionTypes).default("default") });
const definitionShape = {
  name: z.string().max(AUTOMATION_NAME_MAX).optional(),
  status: z.enum(automationStatuses).optional().describe("`enabled` automations start runs; default `disabled`."),
  steps: z.array(step).optional(),
  connections: z.array(connection).optional(),
};
// Steps and connections are one graph (`definitionChanges` refuses one without the other), which `.meta()`
// tells the document; a new automation needs the graph.
const updateBody = z.object(definitionShape).meta({ dependentRequired: { steps: ["connections"], connections: ["steps"] } });
const createBody = z
  .object({ ...definitionShape, name: z.string().max(AUTOMATION_NAME_MAX) })
  .meta({ required: ["name", "steps", "connections"] });

const fields = z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(automationStatuses),
  created_at: wireTimestampText(),
  updated_at: wireTimestampText().nullable(),
});
const listItem = fields.extend({
  trigger_event: z.string().nullable().describe("Tidings only: the custom event whose arrival starts a run, named by the trigger step."),
});
const automation = fields.extend({ object: z.literal("automation"), steps: z.array(step), connections: z.array(connection) });
const reference = z.object({ object: z.literal("automation"), id: z.uuid() });
const runItem = z.object({
  id: z.uuid(),
  status: z.enum(runStatuses),
  started_at: wireTimestampText().nullable(),
  completed_at: wireTimestampText().nullable(),
  created_at: wireTimestampText(),
});
const run = runItem.extend({
  object: z.literal("automation_run"),
  steps: z.array(
    z.object({
      key: z.string(),
      type: z.string(),
      status: z.enum(runStepStatuses),
      output: z.record(z.string(), z.unknown()).nullable(),
      error: z.string().nullable(),
      started_at: wireTimestampText().nullable(),
      completed_at: wireTimestampText().nullable(),
      created_at: wireTimestampText(),
    }),
  ),
});
const runStatusFilter = z
  .string()
  .optional()
  .describe("Comma-separated run statuses.")
  .transform((text, ctx) => {
    const statuses = text?.split(",").filter(Boolean) ?? [];
    const wrong = statuses.find((s) => !(runStatuses as readonly string[]).includes(s));
    if (wrong) ctx.addIssue({ code: "custom", message: `\`status\` must be among ${runStatuses.join(", ")}; got \`${wrong}\`.` });
    return statuses as RunStatus[];
  });

type Body = z.infer<typeof updateBody>;

/** Steps and connections describe one graph, so they come together or not at all (docs/wire-compatibility.md §10.8). */
function definitionChanges(body: Body): Partial<AutomationDefinition> {
  if ((body.steps === undefined) !== (body.connections === undefined))
    throw new TidingsError("validation_error", "`steps` and `connections` must be given together.");
  const changes: Partial<AutomationDefinition> = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.status !== undefined) changes.status = body.status;
  if (body.steps !== undefined) changes.steps = body.steps;
  if (body.connections !== undefined) changes.connections = body.connections;
  return changes;
}

/** `/automations` and their runs (docs/wire-compatibility.md §6.14). Writes fold the automation's stream; reads use the read models. */
export function automationRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);

  return (app) => {
    app.post("/automations", { schema: { tags, body: createBody, response: { 201: reference } } }, async (request, reply) => {
      const changes = definitionChanges(request.body);
      if (changes.steps === undefined) throw new TidingsError("missing_required_field", "Missing `steps` and `connections` fields.");
      const definition: AutomationDefinition = {
        name: request.body.name,
        status: changes.status ?? "disabled",
        steps: changes.steps,
        connections: changes.connections!,
      };
      const result = await write(request, (auth, metadata) => createAutomation(services, auth.teamId, definition, metadata));
      return created(reply, { object: "automation" as const, id: result.id });
    });

    const reads = teamReads(app, services.database, tags);
    reads.list("/automations", listQuerySchema({ status: z.enum(automationStatuses).optional() }), listItem, listAutomations);

    app.get("/automations/:id", { schema: { tags, params, response: { 200: automation } } }, async (request, reply) =>
      ok(reply, await reads.one(request, getAutomation, request.params.id, "Automation not found")),
    );

    app.patch("/automations/:id", { schema: { tags, params, body: updateBody, response: { 200: reference } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) =>
        updateAutomation(services, auth.teamId, request.params.id, definitionChanges(request.body), metadata),
      );
      return ok(reply, { object: "automation" as const, id: result.id });
    });

    app.delete(
      "/automations/:id",
      { schema: { tags, params, response: { 200: reference.extend({ deleted: z.literal(true) }) } } },
      async (request, reply) => {
        const result = await write(request, (auth, metadata) => deleteAutomation(services, auth.teamId, request.params.id, metadata));
        return ok(reply, { object: "automation" as const, id: result.id, deleted: true as const });
      },
    );

    app.post("/automations/:id/duplicate", { schema: { tags, params, response: { 201: reference } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) => duplicateAutomation(services, auth.teamId, request.params.id, metadata));
      return created(reply, { object: "automation" as const, id: result.id });
    });

    app.post(
      "/automations/:id/stop",
      { schema: { tags, params, response: { 200: reference.extend({ status: z.literal("disabled") }) } } },
      async (request, reply) => {
        const result = await write(request, (auth, metadata) =>
          updateAutomation(services, auth.teamId, request.params.id, { status: "disabled" }, metadata),
        );
        return ok(reply, { object: "automation" as const, id: result.id, status: "disabled" as const });
      },
    );

    app.get(
      "/automations/:id/runs",
      { schema: { tags, params, querystring: listQuerySchema({ status: runStatusFilter }), response: { 200: listSchema(runItem) } } },
      async (request, reply) => {
        const auth = requireAuth(request);
        if (!(await getAutomation(services.database, auth.teamId, request.params.id)))
          throw new TidingsError("not_found", "Automation not found");
        const { status, ...page } = request.query;
        return ok(reply, await listRuns(services.database, auth.teamId, request.params.id, { ...page, statuses: status }));
      },
    );

    app.get("/automations/:id/runs/:runId", { schema: { tags, params: runParams, response: { 200: run } } }, async (request, reply) => {
      const auth = requireAuth(request);
      const found = await getRun(services.database, auth.teamId, request.params.id, request.params.runId);
      if (!found) throw new TidingsError("not_found", "Run not found");
      return ok(reply, found);
    });
  };
}
