import { z } from "zod";
import { DomainSettings } from "../domain/events.js";

/** Reference §6.5 / §7. */
export const claimStatuses = ["pending", "verified", "completed", "blocked", "expired", "superseded", "canceled", "failed"] as const;
export type ClaimStatus = (typeof claimStatuses)[number];
export const claimBlockedReasons = ["grace_period", "recent_owner_activity", "pending_scheduled_emails"] as const;
export type ClaimBlockedReason = (typeof claimBlockedReasons)[number];

/** The TXT record the claimant publishes to prove control of the name. */
export const ClaimRecord = z.object({ type: z.literal("TXT"), name: z.string(), value: z.string() });
export type ClaimRecord = z.infer<typeof ClaimRecord>;

/** A claim lives in `domainclaim-<domainId>`, the placeholder domain it turns into a real one on success. */
export const DomainClaimCreated = z.object({
  type: z.literal("DomainClaimCreated"),
  data: DomainSettings.extend({
    claimId: z.uuid(),
    domainId: z.uuid(),
    teamId: z.uuid(),
    name: z.string(),
    record: ClaimRecord,
    createdAt: z.string(),
    expiresAt: z.string(),
  }),
});

export const DomainClaimBlocked = z.object({
  type: z.literal("DomainClaimBlocked"),
  data: z.object({ domainId: z.uuid(), reason: z.enum(claimBlockedReasons), blockedAt: z.string() }),
});

/** The record was not found (or DNS failed); the claimant may publish it and verify again until expiry. */
export const DomainClaimFailed = z.object({
  type: z.literal("DomainClaimFailed"),
  data: z.object({ domainId: z.uuid(), reason: z.string(), failedAt: z.string() }),
});

/** Proven and unblocked: ownership moves next, from `previousDomainId` (null when nobody held the name). */
export const DomainClaimVerified = z.object({
  type: z.literal("DomainClaimVerified"),
  data: z.object({ domainId: z.uuid(), previousDomainId: z.uuid().nullable(), previousTeamId: z.uuid().nullable(), verifiedAt: z.string() }),
});

export const DomainClaimCompleted = z.object({
  type: z.literal("DomainClaimCompleted"),
  data: z.object({ domainId: z.uuid(), completedAt: z.string() }),
});

export const DomainClaimExpired = z.object({
  type: z.literal("DomainClaimExpired"),
  data: z.object({ domainId: z.uuid(), expiredAt: z.string() }),
});

export const DomainClaimSuperseded = z.object({
  type: z.literal("DomainClaimSuperseded"),
  data: z.object({ domainId: z.uuid(), supersededBy: z.uuid(), supersededAt: z.string() }),
});

export const DomainClaimEvent = z.discriminatedUnion("type", [
  DomainClaimCreated,
  DomainClaimBlocked,
  DomainClaimFailed,
  DomainClaimVerified,
  DomainClaimCompleted,
  DomainClaimExpired,
  DomainClaimSuperseded,
]);
export type DomainClaimEvent = z.infer<typeof DomainClaimEvent>;
