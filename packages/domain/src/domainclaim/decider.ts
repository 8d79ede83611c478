import { DomainError, isDomainError, type Decider } from "../decider.js";
import { createdBefore } from "../teamResource.js";
import type { DomainSettings } from "../domain/events.js";
import { checkDomainSettings, normalizeDomainName, type DomainSettingsInput } from "../domain/rules.js";
import type { ClaimBlockedReason, ClaimRecord, ClaimStatus, DomainClaimEvent } from "./events.js";

export const domainClaimStream = (domainId: string) => `domainclaim-${domainId}`;
/** A claim can be acted on for this long after its creation (docs/wire-compatibility.md §6.5). */
export const CLAIM_LIFETIME_MS = 7 * 24 * 3600_000;
export const claimRecordValue = (token: string) => `tidings-domain-verification=${token}`;

/** What a verification found: the claimant's record and the holder's activity decide it. */
export type ClaimCheck =
  | { kind: "blocked"; reason: ClaimBlockedReason }
  | { kind: "failed"; reason: string }
  | { kind: "verified"; previousDomainId: string | null; previousTeamId: string | null };

export type DomainClaimCommand =
  | {
      type: "CreateDomainClaim";
      claimId: string;
      domainId: string;
      teamId: string;
      name: string;
      settings: DomainSettingsInput;
      token: string;
      now: string;
      expiresAt: string;
    }
  | { type: "RecordDomainClaimCheck"; teamId: string; check: ClaimCheck; now: string }
  | { type: "CompleteDomainClaim"; now: string }
  | { type: "SupersedeDomainClaim"; by: string; now: string };

interface ClaimRecordState {
  claimId: string;
  domainId: string;
  teamId: string;
  name: string;
  settings: DomainSettings;
  record: ClaimRecord;
  createdAt: string;
  expiresAt: string;
  status: ClaimStatus;
  blockedReason: ClaimBlockedReason | null;
  failureReason: string | null;
  previous: { domainId: string | null; teamId: string | null } | null;
}

export type DomainClaimState = { status: "none" } | ClaimRecordState;
export type LiveDomainClaim = ClaimRecordState;

/** Statuses a verification can still move: the others are final. */
const open = new Set<ClaimStatus>(["pending", "blocked", "failed"]);
export const isOpenClaim = (status: ClaimStatus) => open.has(status);

/**
 * Expiry applies on its own at 7 days: a claim shown after that is expired even before anything records
 * it. Wire timestamps are fixed-width UTC, so they compare as text.
 */
export function claimStatusAt(claim: Pick<LiveDomainClaim, "status" | "expiresAt">, now: string): ClaimStatus {
  return isOpenClaim(claim.status) && now >= claim.expiresAt ? "expired" : claim.status;
}

function decideCheck(state: LiveDomainClaim, check: ClaimCheck, now: string): DomainClaimEvent[] {
  const domainId = state.domainId;
  if (claimStatusAt(state, now) === "expired") return [{ type: "DomainClaimExpired", data: { domainId, expiredAt: now } }];
  switch (check.kind) {
    case "blocked":
      return state.status === "blocked" && state.blockedReason === check.reason
        ? []
        : [{ type: "DomainClaimBlocked", data: { domainId, reason: check.reason, blockedAt: now } }];
    case "failed":
      return state.status === "failed" && state.failureReason === check.reason
        ? []
        : [{ type: "DomainClaimFailed", data: { domainId, reason: check.reason, failedAt: now } }];
    case "verified":
      return [
        {
          type: "DomainClaimVerified",
          data: { domainId, previousDomainId: check.previousDomainId, previousTeamId: check.previousTeamId, verifiedAt: now },
        },
      ];
  }
}

const notFound = () => new DomainError("not_found", "Domain claim not found");

export const domainClaimDecider: Decider<DomainClaimCommand, DomainClaimEvent, DomainClaimState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    if (event.type === "DomainClaimCreated") {
      const { claimId, domainId, teamId, name, record, createdAt, expiresAt, ...settings } = event.data;
      return {
        claimId,
        domainId,
        teamId,
        name,
        settings,
        record,
        createdAt,
        expiresAt,
        status: "pending",
        blockedReason: null,
        failureReason: null,
        previous: null,
      };
    }
    if (state.status === "none") return state;
    switch (event.type) {
      case "DomainClaimBlocked":
        return { ...state, status: "blocked", blockedReason: event.data.reason, failureReason: null };
      case "DomainClaimFailed":
        return { ...state, status: "failed", blockedReason: null, failureReason: event.data.reason };
      case "DomainClaimVerified":
        return {
          ...state,
          status: "verified",
          blockedReason: null,
          failureReason: null,
          previous: { domainId: event.data.previousDomainId, teamId: event.data.previousTeamId },
        };
      case "DomainClaimCompleted":
        return { ...state, status: "completed" };
      case "DomainClaimExpired":
        return { ...state, status: "expired" };
      case "DomainClaimSuperseded":
        return { ...state, status: "superseded" };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "CreateDomainClaim": {
        if (state.status !== "none") return createdBefore(state.claimId === command.claimId, "Domain claim");
        const name = normalizeDomainName(command.name);
        if (name === undefined)
          return new DomainError("validation_error", "The `name` field must be a fully qualified domain name, such as `example.com`.");
        const settings = checkDomainSettings(command.settings);
        if (isDomainError(settings)) return settings;
        const { claimId, domainId, teamId, token, now, expiresAt } = command;
        const record: ClaimRecord = { type: "TXT", name, value: claimRecordValue(token) };
        return [{ type: "DomainClaimCreated", data: { claimId, domainId, teamId, name, ...settings, record, createdAt: now, expiresAt } }];
      }
      case "RecordDomainClaimCheck":
        if (state.status === "none" || state.teamId !== command.teamId) return notFound();
        return isOpenClaim(state.status) ? decideCheck(state, command.check, command.now) : [];
      case "CompleteDomainClaim":
        if (state.status === "none") return notFound();
        if (state.status === "completed") return [];
        if (state.status !== "verified") return new DomainError("validation_error", "Only a verified claim can complete.");
        return [{ type: "DomainClaimCompleted", data: { domainId: state.domainId, completedAt: command.now } }];
      case "SupersedeDomainClaim":
        if (state.status === "none" || !isOpenClaim(state.status)) return [];
        return [{ type: "DomainClaimSuperseded", data: { domainId: state.domainId, supersededBy: command.by, supersededAt: command.now } }];
    }
  },
};
