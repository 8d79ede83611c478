import { describe, expect, it } from "vitest";
import { fold } from "../decider.js";
import { given, now, otherTeam, teamId } from "../testing/scenario.js";
import { aDomainSettings } from "../testing/domainBuilders.js";
import { claimStatusAt, domainClaimDecider, type DomainClaimCommand } from "./decider.js";
import type { DomainClaimEvent } from "./events.js";

const domainId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const claimId = "11111111-1111-4111-8111-111111111111";
const previousDomainId = "22222222-2222-4222-8222-222222222222";
const newer = "33333333-3333-4333-8333-333333333333";
const later = "2026-11-24 10:00:00.000000+00";
const expiresAt = "2026-11-30 10:00:00.000000+00";
const afterExpiry = "2026-11-30 10:00:00.000001+00";
const settings = aDomainSettings();

const create = (overrides: Partial<Extract<DomainClaimCommand, { type: "CreateDomainClaim" }>> = {}): DomainClaimCommand => ({
  type: "CreateDomainClaim",
  claimId,
  domainId,
  teamId,
  name: "Example.com",
  settings,
  token: "TOKEN",
  now,
  expiresAt,
  ...overrides,
});
const created: DomainClaimEvent = {
  type: "DomainClaimCreated",
  data: {
    claimId,
    domainId,
    teamId,
    name: "example.com",
    ...settings,
    record: { type: "TXT", name: "example.com", value: "tidings-domain-verification=TOKEN" },
    createdAt: now,
    expiresAt,
  },
};
const check = (
  c: Extract<DomainClaimCommand, { type: "RecordDomainClaimCheck" }>["check"],
  at = later,
  team = teamId,
): DomainClaimCommand => ({ type: "RecordDomainClaimCheck", teamId: team, check: c, now: at });
const blocked: DomainClaimEvent = { type: "DomainClaimBlocked", data: { domainId, reason: "pending_scheduled_emails", blockedAt: later } };
const verified: DomainClaimEvent = {
  type: "DomainClaimVerified",
  data: { domainId, previousDomainId, previousTeamId: otherTeam, verifiedAt: later },
};

describe("domain claim decider", () => {
  it("creates a pending claim with the TXT record to publish", () => given(domainClaimDecider).when(create()).then([created]));

  it("refuses a bad name or region, naming the field", () => {
    given(domainClaimDecider)
      .when(create({ name: "nope" }))
      .thenError("validation_error", /`name`/);
    given(domainClaimDecider)
      .when(create({ settings: { ...settings, region: "x" } }))
      .thenError("invalid_region", /`region`/);
    given(domainClaimDecider)
      .when(create({ settings: { ...settings, trackingSubdomain: "a.b" } }))
      .thenError("validation_error", /`tracking_subdomain`/);
  });

  it("is blocked while the holder has scheduled mail, once per reason", () => {
    given(domainClaimDecider, [created])
      .when(check({ kind: "blocked", reason: "pending_scheduled_emails" }))
      .then([blocked]);
    given(domainClaimDecider, [created, blocked])
      .when(check({ kind: "blocked", reason: "pending_scheduled_emails" }))
      .then([]);
    given(domainClaimDecider, [created, blocked])
      .when(check({ kind: "blocked", reason: "recent_owner_activity" }))
      .then([{ type: "DomainClaimBlocked", data: { domainId, reason: "recent_owner_activity", blockedAt: later } }]);
  });

  it("fails with a reason when the record is missing, and can verify later", () => {
    const failed: DomainClaimEvent = { type: "DomainClaimFailed", data: { domainId, reason: "missing", failedAt: later } };
    given(domainClaimDecider, [created])
      .when(check({ kind: "failed", reason: "missing" }))
      .then([failed]);
    given(domainClaimDecider, [created, failed])
      .when(check({ kind: "verified", previousDomainId, previousTeamId: otherTeam }))
      .then([verified]);
  });

  it("verifies a blocked claim once the holder is quiet, then completes once", () => {
    given(domainClaimDecider, [created, blocked])
      .when(check({ kind: "verified", previousDomainId, previousTeamId: otherTeam }))
      .then([verified]);
    const completed: DomainClaimEvent = { type: "DomainClaimCompleted", data: { domainId, completedAt: later } };
    given(domainClaimDecider, [created, verified]).when({ type: "CompleteDomainClaim", now: later }).then([completed]);
    given(domainClaimDecider, [created, verified, completed]).when({ type: "CompleteDomainClaim", now: later }).then([]);
    given(domainClaimDecider, [created]).when({ type: "CompleteDomainClaim", now: later }).thenError("validation_error");
  });

  it("expires 7 days on: shown expired at once, recorded at the next check", () => {
    const state = fold(domainClaimDecider, [created]);
    expect(state.status !== "none" && claimStatusAt(state, afterExpiry)).toBe("expired");
    expect(state.status !== "none" && claimStatusAt(state, later)).toBe("pending");
    given(domainClaimDecider, [created])
      .when(check({ kind: "verified", previousDomainId: null, previousTeamId: null }, afterExpiry))
      .then([{ type: "DomainClaimExpired", data: { domainId, expiredAt: afterExpiry } }]);
  });

  it("is superseded by a newer claim while open, and not once final", () => {
    const superseded: DomainClaimEvent = { type: "DomainClaimSuperseded", data: { domainId, supersededBy: newer, supersededAt: later } };
    given(domainClaimDecider, [created]).when({ type: "SupersedeDomainClaim", by: newer, now: later }).then([superseded]);
    given(domainClaimDecider, [created, verified]).when({ type: "SupersedeDomainClaim", by: newer, now: later }).then([]);
    given(domainClaimDecider, [created, superseded])
      .when(check({ kind: "verified", previousDomainId, previousTeamId: otherTeam }))
      .then([]);
  });

  it("hides another team's claim", () =>
    given(domainClaimDecider, [created])
      .when(check({ kind: "failed", reason: "x" }, later, otherTeam))
      .thenError("not_found"));
});
