import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";
import { DomainSettings } from "../domain/events.js";

/** docs/wire-compatibility.md §6.5 / §7. */
export const claimStatuses = ["pending", "verified", "completed", "blocked", "expired", "superseded", "canceled", "failed"] as const;
export type ClaimStatus = (typeof claimStatuses)[number];
export const claimBlockedReasons = ["grace_period", "recent_owner_activity", "pending_scheduled_emails"] as const;
export type ClaimBlockedReason = (typeof claimBlockedReasons)[number];

/** The TXT record the claimant publishes to prove control of the name. */
export const ClaimRecord = z.object({ type: z.literal("TXT"), name: z.string(), value: z.string() });
export type ClaimRecord = z.infer<typeof ClaimRecord>;

/** A claim lives in `domainclaim-<domainId>`, the placeholder domain it turns into a real one on success. */
export const DomainClaimCreated = eventSchema("DomainClaimCreated", {
  ...DomainSettings.shape,
  claimId: z.uuid(),
  domainId: z.uuid(),
  teamId: z.uuid(),
  name: z.string(),
  record: ClaimRecord,
  createdAt: z.string(),
  expiresAt: z.string(),
});

export const DomainClaimBlocked = eventSchema("DomainClaimBlocked", {
  domainId: z.uuid(),
  reason: z.enum(claimBlockedReasons),
  blockedAt: z.string(),
});

/** The record was not found (or DNS failed); the claimant may publish it and verify again until expiry. */
export const DomainClaimFailed = eventSchema("DomainClaimFailed", { domainId: z.uuid(), reason: z.string(), failedAt: z.string() });

/** Proven and unblocked: ownership moves next, from `previousDomainId` (null when nobody held the name). */
export const DomainClaimVerified = eventSchema("DomainClaimVerified", {
  domainId: z.uuid(),
  previousDomainId: z.uuid().nullable(),
  previousTeamId: z.uuid().nullable(),
  verifiedAt: z.string(),
});

export const DomainClaimCompleted = eventSchema("DomainClaimCompleted", { domainId: z.uuid(), completedAt: z.string() });

export const DomainClaimExpired = eventSchema("DomainClaimExpired", { domainId: z.uuid(), expiredAt: z.string() });

export const DomainClaimSuperseded = eventSchema("DomainClaimSuperseded", {
  domainId: z.uuid(),
  supersededBy: z.uuid(),
  supersededAt: z.string(),
});

export const DomainClaimEvent = eventUnion([
  DomainClaimCreated,
  DomainClaimBlocked,
  DomainClaimFailed,
  DomainClaimVerified,
  DomainClaimCompleted,
  DomainClaimExpired,
  DomainClaimSuperseded,
]);
export type DomainClaimEvent = z.infer<typeof DomainClaimEvent>;
