import { z } from "zod";
import {
  TEMPLATE_NAME_MAX,
  TEMPLATE_VARIABLE_KEY_MAX,
  TEMPLATE_VARIABLES_MAX,
  templateVariableTypes,
  type TemplateContent,
} from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { createTemplate, duplicateTemplate } from "../handlers/createTemplate.js";
import { deleteTemplate, publishTemplate, updateTemplate } from "../handlers/changeTemplate.js";
import { listQuerySchema } from "../pagination.js";
import { getTemplate, listTemplates } from "../queries/templates.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { mailboxText } from "./documentedText.js";
import { teamReads } from "./readRoutes.js";

const tags = ["templates"];
const params = z.object({ idOrAlias: z.string().min(1).max(255).describe("The template's id or alias.") });

const variable = z.object({
  // The domain checks the key, the name, the html and the alias (see documentedText.ts); `.meta()` documents them.
  key: z
    .string()
    .meta({ pattern: `^[A-Za-z0-9_]{1,${TEMPLATE_VARIABLE_KEY_MAX}}$` })
    .describe("Used in the template as `{{{KEY}}}`: ASCII letters, digits and underscores."),
  type: z.enum(templateVariableTypes),
  fallback_value: z
    .union([z.string(), z.number()])
    .nullable()
    .optional()
    .describe("Used when a send supplies no value; of the variable's type."),
});

const contentShape = {
  name: z.string().max(TEMPLATE_NAME_MAX).meta({ minLength: 1 }).describe("The template's name."),
  html: z.string().meta({ minLength: 1 }).describe("The html body; variables are written `{{{KEY}}}` or `{{{KEY|fallback}}}`."),
  alias: z
    .string()
    .meta({ pattern: "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$" })
    .nullable()
    .optional()
    .describe("A name unique within the team, usable wherever the id is."),
  subject: z.string().nullable().optional().describe("Default subject, overridable when sending."),
  text: z.string().nullable().optional().describe("Plain-text body; generated from html when omitted, none when empty."),
  from: mailboxText().nullable().optional().describe("Default sender, `email@example.com` or `Name <email@example.com>`."),
  reply_to: z
    .union([mailboxText(), z.array(mailboxText())])
    .nullable()
    .optional(),
  variables: z
    .array(variable)
    .max(TEMPLATE_VARIABLES_MAX, `The \`variables\` field must hold at most ${TEMPLATE_VARIABLES_MAX} variables.`)
    .nullable()
    .optional(),
};

const createBody = z.object(contentShape);
const updateBody = z.object({ ...contentShape, name: contentShape.name.optional(), html: contentShape.html.optional() });
type Body = z.infer<typeof updateBody>;

/** Wire fields to the domain's, only those given: a PATCH changes what it names and nothing else. */
function contentChanges(body: Body): Partial<TemplateContent> {
  const changes: Partial<TemplateContent> = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.html !== undefined) changes.html = body.html;
  if (body.alias !== undefined) changes.alias = body.alias;
  if (body.subject !== undefined) changes.subject = body.subject;
  if (body.text !== undefined) changes.text = body.text;
  if (body.from !== undefined) changes.from = body.from;
  if (body.reply_to !== undefined) changes.replyTo = typeof body.reply_to === "string" ? [body.reply_to] : body.reply_to;
  if (body.variables !== undefined)
    changes.variables = (body.variables ?? []).map((v) => ({ key: v.key, type: v.type, fallbackValue: v.fallback_value ?? null }));
  return changes;
}

const noContent: Omit<TemplateContent, "name" | "html"> = {
  alias: null,
  subject: null,
  text: null,
  from: null,
  replyTo: null,
  variables: [],
};

const listItem = z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(["draft", "published"]),
  published_at: wireTimestampText().nullable(),
  created_at: wireTimestampText(),
  updated_at: wireTimestampText(),
  alias: z.string().nullable(),
});
const template = listItem.extend({
  object: z.literal("template"),
  subject: z.string().nullable(),
  html: z.string(),
  text: z.string().nullable(),
  from: z.string().nullable(),
  reply_to: z.array(z.string()).nullable(),
  variables: z.array(
    z.object({
      key: z.string(),
      type: z.enum(templateVariableTypes),
      fallback_value: z.union([z.string(), z.number()]).nullable(),
      created_at: wireTimestampText(),
      updated_at: wireTimestampText(),
    }),
  ),
  has_unpublished_versions: z.boolean(),
  current_version_id: z.uuid(),
});
const reference = z.object({ object: z.literal("template"), id: z.uuid() });
const deleted = reference.extend({ deleted: z.literal(true) });

/**
 * `/templates` (docs/wire-compatibility.md §6.12). Writes address the template through the event store, reads through the
 * read model; a write replies once the read model shows it. `templates.list` sends `before, after, limit`
 * in that order and drops falsy values (docs/wire-compatibility.md §2.1): a query string has no order, so nothing special is needed.
 */
export function templateRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);

  return (app) => {
    app.post("/templates", { schema: { tags, body: createBody, response: { 201: reference } } }, async (request, reply) => {
      const { name, html } = request.body;
      const content = { ...noContent, name, html, ...contentChanges(request.body) };
      const result = await write(request, (auth, metadata) => createTemplate(services, auth.teamId, content, metadata));
      return created(reply, { object: "template" as const, id: result.id });
    });

    const reads = teamReads(app, services.database, tags);
    reads.list("/templates", listQuerySchema(), listItem, listTemplates);

    app.get("/templates/:idOrAlias", { schema: { tags, params, response: { 200: template } } }, async (request, reply) =>
      ok(reply, await reads.one(request, getTemplate, request.params.idOrAlias, "Template not found")),
    );

    app.patch(
      "/templates/:idOrAlias",
      { schema: { tags, params, body: updateBody, response: { 200: reference } } },
      async (request, reply) => {
        const changes = contentChanges(request.body);
        const result = await write(request, (auth, metadata) =>
          updateTemplate(services, auth.teamId, request.params.idOrAlias, changes, metadata),
        );
        return ok(reply, { object: "template" as const, id: result.id });
      },
    );

    app.delete("/templates/:idOrAlias", { schema: { tags, params, response: { 200: deleted } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) => deleteTemplate(services, auth.teamId, request.params.idOrAlias, metadata));
      return ok(reply, { object: "template" as const, id: result.id, deleted: true as const });
    });

    app.post("/templates/:idOrAlias/publish", { schema: { tags, params, response: { 200: reference } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) => publishTemplate(services, auth.teamId, request.params.idOrAlias, metadata));
      return ok(reply, { object: "template" as const, id: result.id });
    });

    app.post("/templates/:idOrAlias/duplicate", { schema: { tags, params, response: { 201: reference } } }, async (request, reply) => {
      const result = await write(request, (auth, metadata) => duplicateTemplate(services, auth.teamId, request.params.idOrAlias, metadata));
      return created(reply, { object: "template" as const, id: result.id });
    });
  };
}
