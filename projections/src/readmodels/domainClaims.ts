import type { ClaimBlockedReason, ClaimRecord, ClaimStatus, DomainClaimEvent, DomainRegion } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

/**
 * Domain claims as `GET /domains/claims` lists them (a Tidings addition: docs/wire-compatibility.md §6.5). A
 * row is keyed by the claim's placeholder domain, which every claim event names; the list pages by the
 * claim's own id, the `id` the API shows. A claim's page reads its stream instead, which has the latest word.
 */
export const domainClaimsProjection = {
  name: "domain_claims",
  version: 1,
  tables: {
    domain_claims: teamResourceTable({
      columns: {
        claim_id: { type: "uuid" },
        name: { type: "text" },
        status: { type: "text", ...holds<ClaimStatus>() },
        region: { type: "text", ...holds<DomainRegion>() },
        record: { type: "jsonb", ...holds<ClaimRecord>() },
        blocked_reason: { type: "text", nullable: true, ...holds<ClaimBlockedReason>() },
        failure_reason: { type: "text", nullable: true },
        created_at: { type: "timestamptz" },
        expires_at: { type: "timestamptz" },
      },
      indexes: { by_team_claim: "(team_id, created_at DESC, claim_id DESC)" },
    }),
  },
  handlers: handlersOf<DomainClaimEvent>({
    DomainClaimCreated(data, context) {
      context.upsert("domain_claims", {
        id: data.domainId,
        team_id: data.teamId,
        claim_id: data.claimId,
        name: data.name,
        status: "pending",
        region: data.region,
        record: data.record,
        blocked_reason: null,
        failure_reason: null,
        created_at: data.createdAt,
        expires_at: data.expiresAt,
      });
    },
    DomainClaimBlocked({ domainId, reason }, context) {
      context.update("domain_claims", { id: domainId }, { status: "blocked", blocked_reason: reason, failure_reason: null });
    },
    DomainClaimFailed({ domainId, reason }, context) {
      context.update("domain_claims", { id: domainId }, { status: "failed", blocked_reason: null, failure_reason: reason });
    },
    DomainClaimVerified({ domainId }, context) {
      context.update("domain_claims", { id: domainId }, { status: "verified", blocked_reason: null, failure_reason: null });
    },
    DomainClaimCompleted({ domainId }, context) {
      context.update("domain_claims", { id: domainId }, { status: "completed" });
    },
    DomainClaimExpired({ domainId }, context) {
      context.update("domain_claims", { id: domainId }, { status: "expired" });
    },
    DomainClaimSuperseded({ domainId }, context) {
      context.update("domain_claims", { id: domainId }, { status: "superseded" });
    },
  }),
} satisfies Projection;
