import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

/** docs/wire-compatibility.md §6.18. A bounce is recorded by the delivery saga's `EmailBounced`; the others come through here. */
export const suppressionOrigins = ["bounce", "complaint", "manual"] as const;
export type SuppressionOrigin = (typeof suppressionOrigins)[number];

/** An address found on the team's list, and how it got there. */
export interface SuppressedAddress {
  email: string;
  origin: SuppressionOrigin;
}

/** Why `email.suppressed` says an email was not sent (docs/wire-compatibility.md §8.2); a manual entry gives no reason. */
export const suppressionReasons = ["previous_bounce", "previous_complaint"] as const;
export type SuppressionReason = (typeof suppressionReasons)[number];

/** The reason for a suppression of these addresses: a bounce before a complaint, as it says more of the mailbox. */
export function suppressionReason(found: SuppressedAddress[]): SuppressionReason | null {
  if (found.some((f) => f.origin === "bounce")) return "previous_bounce";
  if (found.some((f) => f.origin === "complaint")) return "previous_complaint";
  return null;
}

/**
 * The address's keyed hash. The sealing store adds it (docs/privacy.md), in clear, so that a suppression
 * outlives the address's erasure and mail to it is still refused; events recorded without the sealing
 * store lack it.
 */
const emailHash = { emailHash: z.string().optional() };

export const SuppressionAdded = eventSchema("SuppressionAdded", {
  suppressionId: z.uuid(),
  teamId: z.uuid(),
  /** Bare and lower-cased, as the send path compares it. */
  email: z.string(),
  ...emailHash,
  origin: z.enum(suppressionOrigins),
  /** The email whose bounce or complaint caused it; null for a manual one. */
  sourceId: z.uuid().nullable(),
  createdAt: z.string(),
});

export const SuppressionRemoved = eventSchema("SuppressionRemoved", {
  suppressionId: z.uuid(),
  teamId: z.uuid(),
  email: z.string(),
  ...emailHash,
  removedAt: z.string(),
});

export const SuppressionEvent = eventUnion([SuppressionAdded, SuppressionRemoved]);
export type SuppressionEvent = z.infer<typeof SuppressionEvent>;
