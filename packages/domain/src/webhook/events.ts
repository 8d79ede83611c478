import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

export const webhookStatuses = ["enabled", "disabled"] as const;
export type WebhookStatus = (typeof webhookStatuses)[number];

/** A signing secret as stored: sealed with AES-256-GCM under TIDINGS_SECRET (docs/architecture.md §4), never in plaintext. */
const sealedSecret = z.string().min(1);

export const WebhookCreated = eventSchema("WebhookCreated", {
  webhookId: z.uuid(),
  teamId: z.uuid(),
  endpoint: z.string(),
  events: z.array(z.string()),
  secret: sealedSecret,
  createdAt: z.string(),
});

/** The whole configuration after a PATCH, so the current one reads from one event. */
export const WebhookUpdated = eventSchema("WebhookUpdated", {
  webhookId: z.uuid(),
  endpoint: z.string(),
  events: z.array(z.string()),
  status: z.enum(webhookStatuses),
  updatedAt: z.string(),
});

/** The old secret keeps signing, beside the new one, until `previousValidUntil` (the 24 h grace). */
export const WebhookSigningSecretRotated = eventSchema("WebhookSigningSecretRotated", {
  webhookId: z.uuid(),
  secret: sealedSecret,
  previousSecret: sealedSecret,
  previousValidUntil: z.string(),
  rotatedAt: z.string(),
});

export const WebhookDeleted = eventSchema("WebhookDeleted", { webhookId: z.uuid(), deletedAt: z.string() });

export const WebhookEvent = eventUnion([WebhookCreated, WebhookUpdated, WebhookSigningSecretRotated, WebhookDeleted]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/** The sealing purpose of signing secrets: the api seals with it, the webhook saga opens with it. */
export const WEBHOOK_SECRET_SEAL_PURPOSE = "webhook-signing-secret";
