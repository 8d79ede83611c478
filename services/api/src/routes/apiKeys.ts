import { z } from "zod";
import type { preValidationHookHandler } from "fastify";
import { TidingsError } from "@tidings/core";
import { API_KEY_NAME_MAX, apiKeyPermissions } from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { createApiKey } from "../handlers/createApiKey.js";
import { deleteApiKey, renameApiKey } from "../handlers/changeApiKey.js";
import { listQuerySchema } from "../pagination.js";
import { listApiKeys } from "../queries/apiKeys.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { teamReads } from "./readRoutes.js";

const tags = ["api-keys"];
const name = z.string().min(1).max(API_KEY_NAME_MAX).describe(`The key's name, at most ${API_KEY_NAME_MAX} characters.`);
const params = z.object({ id: z.uuid() });

const createBody = z.object({
  name,
  permission: z
    .enum(apiKeyPermissions)
    .optional()
    .describe("`full_access` (the default) may do everything; `sending_access` may only send emails."),
  domain_id: z.uuid().nullable().optional().describe("Restricts a `sending_access` key to sending from this domain."),
});

const item = z.object({ id: z.uuid(), name: z.string(), created_at: wireTimestampText(), last_used_at: wireTimestampText().nullable() });
const createdKey = z.object({ object: z.literal("api_key"), id: z.uuid(), token: z.string().describe("Shown only in this response.") });
const changedKey = z.object({ object: z.literal("api_key"), id: z.uuid() });
const deletedKey = z.object({ object: z.literal("api_key"), id: z.uuid(), deleted: z.literal(true) });

/**
 * docs/wire-compatibility.md §3.2 names an unknown permission `invalid_access`, not a generic validation error:
 * checked before the schema.
 */
const checkPermission: preValidationHookHandler = (request, _reply, done) => {
  const body = request.body as { permission?: unknown } | null | undefined;
  const permission = body !== null && typeof body === "object" && !Array.isArray(body) ? body.permission : undefined;
  if (permission !== undefined && !(apiKeyPermissions as readonly unknown[]).includes(permission)) {
    done(new TidingsError("invalid_access", "`permission` must be `full_access` or `sending_access`."));
    return;
  }
  done();
};

/** `POST/GET /api-keys`, `PATCH/DELETE /api-keys/:id` (docs/wire-compatibility.md §6.6). A write replies once its read model shows it. */
export function apiKeyRoutes(services: ApiServices): ApiRoutes {
  const write = callerWrites(services);

  return (app) => {
    const permissionErrors = { invalid_access: "`permission` is neither `full_access` nor `sending_access`." };
    app.post(
      "/api-keys",
      { preValidation: checkPermission, schema: { tags, body: createBody, errors: permissionErrors, response: { 201: createdKey } } },
      async (request, reply) => {
        const { name, permission = "full_access", domain_id } = request.body;
        const key = await write(request, (auth, metadata) =>
          createApiKey(services, { teamId: auth.teamId, name, permission, domainId: domain_id ?? null }, metadata),
        );
        return created(reply, { object: "api_key" as const, id: key.id, token: key.token });
      },
    );

    teamReads(app, services.database, tags).list("/api-keys", listQuerySchema(), item, listApiKeys);

    app.patch(
      "/api-keys/:id",
      { schema: { tags, params, body: z.object({ name }), response: { 200: changedKey } } },
      async (request, reply) => {
        const { id } = request.params;
        await write(request, (auth, metadata) => renameApiKey(services, auth.teamId, id, request.body.name, metadata));
        return ok(reply, { object: "api_key" as const, id });
      },
    );

    app.delete("/api-keys/:id", { schema: { tags, params, response: { 200: deletedKey } } }, async (request, reply) => {
      const { id } = request.params;
      await write(request, (auth, metadata) => deleteApiKey(services, auth.teamId, id, metadata));
      return ok(reply, { object: "api_key" as const, id, deleted: true as const });
    });
  };
}
