import type { Database } from "@tidings/postgres";
import {
  claimStatusAt,
  type ClaimBlockedReason,
  type ClaimRecord,
  type ClaimStatus,
  type DomainRegion,
  type LiveDomainClaim,
} from "@tidings/domain";
import { readModels } from "@tidings/projections";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";

/** The DomainClaim object of docs/wire-compatibility.md §6.5. */
export interface WireDomainClaim {
  object: "domain_claim";
  id: string;
  name: string;
  status: ClaimStatus;
  domain_id: string;
  region: DomainRegion;
  record: ClaimRecord & { ttl: "Auto" };
  blocked_reason: ClaimBlockedReason | null;
  failure_reason: string | null;
  created_at: string;
  expires_at: string;
}

/** A claim as its stream or the read model holds it, before `now` decides whether it has expired. */
type StoredClaim = Omit<WireDomainClaim, "object" | "record"> & { record: ClaimRecord };

/**
 * A claim as of `now` (a wire timestamp): past its 7 days an open claim shows expired, and a reason shows
 * only beside the status it explains.
 */
export function wireDomainClaim(claim: StoredClaim, now: string): WireDomainClaim {
  const status = claimStatusAt({ status: claim.status, expiresAt: claim.expires_at }, now);
  return {
    object: "domain_claim",
    ...claim,
    status,
    record: { ...claim.record, ttl: "Auto" },
    blocked_reason: status === "blocked" ? claim.blocked_reason : null,
    failure_reason: status === "failed" ? claim.failure_reason : null,
  };
}

/** A claim read from its stream, in the fields the read model keeps. */
export const storedClaim = (claim: LiveDomainClaim): StoredClaim => ({
  id: claim.claimId,
  name: claim.name,
  status: claim.status,
  domain_id: claim.domainId,
  region: claim.settings.region,
  record: claim.record,
  blocked_reason: claim.blockedReason,
  failure_reason: claim.failureReason,
  created_at: claim.createdAt,
  expires_at: claim.expiresAt,
});

/**
 * `GET /domains/claims` (a Tidings addition): the team's claims, newest first, paged by the claim's id.
 * Without `limit`, the documented default page (docs/wire-compatibility.md §2.1).
 */
export async function listDomainClaims(
  database: Database,
  teamId: string,
  page: PageRequest,
  now: string,
): Promise<ListPage<WireDomainClaim>> {
  const base = readModels(database)
    .selectFrom("domain_claims as c")
    .where("c.team_id", "=", teamId)
    .select([
      "c.claim_id as id",
      "c.name",
      "c.status",
      "c.id as domain_id",
      "c.region",
      "c.record",
      "c.blocked_reason",
      "c.failure_reason",
      wireTimestamp("c.created_at").as("created_at"),
      wireTimestamp("c.expires_at").as("expires_at"),
    ]);
  return listPage(base, page, { orderBy: ["c.created_at", "c.claim_id"], toItem: (row) => wireDomainClaim(row, now) });
}
