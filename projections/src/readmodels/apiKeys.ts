import type { ApiKeyEvent } from "@tidings/domain";
import type { Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

/**
 * Live API keys: listed per team, and looked up by token hash on every authenticated request. A deleted
 * key's row is removed, so a lookup cannot find it. `last_used_at` is not here: it is operational data
 * the api writes itself (not events), kept in its own table so that a rebuild of this one keeps it.
 *
 * The token-hash index is not unique: a unique index in a read model would stall the projection on a
 * violating event instead of refusing the write. Uniqueness holds on the write side: a generated token has
 * 238 random bits, and a given token (bootstrap) always maps to the same key id, hence the same stream.
 */
export const apiKeysProjection = {
  name: "api_keys",
  version: 1,
  tables: {
    api_keys: teamResourceTable({
      columns: {
        name: { type: "text" },
        permission: { type: "text" },
        domain_id: { type: "uuid", nullable: true },
        token_hash: { type: "text" },
        created_at: { type: "timestamptz" },
      },
      indexes: { by_token: "(token_hash)" },
    }),
  },
  handlers: handlersOf<ApiKeyEvent>({
    ApiKeyCreated({ apiKeyId, teamId, name, permission, domainId, tokenHash, createdAt }, context) {
      context.upsert("api_keys", {
        id: apiKeyId,
        team_id: teamId,
        name,
        permission,
        domain_id: domainId,
        token_hash: tokenHash,
        created_at: createdAt,
      });
    },
    ApiKeyRenamed({ apiKeyId, name }, context) {
      context.update("api_keys", { id: apiKeyId }, { name });
    },
    ApiKeyDeleted(data, context) {
      context.delete("api_keys", { id: data.apiKeyId });
    },
  }),
} satisfies Projection;
