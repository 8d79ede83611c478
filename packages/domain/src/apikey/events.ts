import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

export const apiKeyPermissions = ["full_access", "sending_access"] as const;
export type ApiKeyPermission = (typeof apiKeyPermissions)[number];

export const ApiKeyCreated = eventSchema("ApiKeyCreated", {
  apiKeyId: z.uuid(),
  teamId: z.uuid(),
  name: z.string().max(50),
  permission: z.enum(apiKeyPermissions),
  domainId: z.uuid().nullable(),
  /** Only a SHA-256 of the token is ever stored (docs/architecture.md §4). */
  tokenHash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string(),
});

export const ApiKeyRenamed = eventSchema("ApiKeyRenamed", { apiKeyId: z.uuid(), name: z.string().max(50) });

export const ApiKeyDeleted = eventSchema("ApiKeyDeleted", { apiKeyId: z.uuid(), deletedAt: z.string() });

export const ApiKeyEvent = eventUnion([ApiKeyCreated, ApiKeyRenamed, ApiKeyDeleted]);
export type ApiKeyEvent = z.infer<typeof ApiKeyEvent>;
