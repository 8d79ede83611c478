import { formatTimestamp, newId, randomBase62, TidingsError } from "@tidings/core";
import { DomainRejection, handleCommand, loadState, reserve, reservationStream, reservedBy } from "@tidings/commands";
import {
  CLAIM_LIFETIME_MS,
  domainClaimDecider,
  domainClaimStream,
  domainDecider,
  domainStream,
  isDomainError,
  isOpenClaim,
  type ClaimBlockedReason,
  type DomainClaimCommand,
  type DomainClaimState,
  type LiveDomainClaim,
} from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { generateDkimKey } from "@tidings/mail";
import type { Database } from "@tidings/postgres";
import { claimBlocker } from "../queries/domainClaimBlockers.js";
import { missingClaimRecord } from "../lookups/claimRecordLookup.js";
import { recordTargets, sealingSecret, settingsOf, type CreateDomainInput, type DomainDeps } from "./createDomain.js";
import { domainHolding, domainNameStream, loadDomain } from "../lookups/domainStreams.js";

type ClaimDeps = DomainDeps & { database: Database; catchUp(projections: readonly string[]): Promise<boolean> };

export interface ClaimOutcome {
  claim: LiveDomainClaim;
  /** The last write, for read-your-writes on the domains and claims read models. */
  position?: Position;
}

/** The latest claim on a name, across teams: a newer claim supersedes the one it finds here. */
const latestClaimStream = (name: string) => reservationStream("all-teams", "domain-claim", name);

const loadClaim = (store: EventStore, domainId: string): Promise<DomainClaimState> =>
  loadState(store, domainClaimStream(domainId), domainClaimDecider);

async function claimCommand(deps: Pick<ClaimDeps, "store">, domainId: string, command: DomainClaimCommand, metadata: EventMetadata) {
  return handleCommand({ store: deps.store, streamId: domainClaimStream(domainId), decider: domainClaimDecider, command, metadata });
}

/** The team's claim on the placeholder domain `domainId`. */
export async function findClaim(store: EventStore, teamId: string, domainId: string): Promise<LiveDomainClaim> {
  const claim = await loadClaim(store, domainId);
  if (claim.status === "none" || claim.teamId !== teamId) throw new TidingsError("not_found", "Domain claim not found");
  return claim;
}

/**
 * `POST /domains/claim`: a placeholder domain id and a pending claim whose TXT record proves control of
 * the name. The newest claim on a name wins: an older open one, whoever made it, is superseded.
 */
export async function createDomainClaim(
  deps: ClaimDeps,
  teamId: string,
  input: CreateDomainInput,
  metadata: EventMetadata,
): Promise<ClaimOutcome> {
  const domainId = newId();
  const now = deps.clock.now();
  const command: DomainClaimCommand = {
    type: "CreateDomainClaim",
    claimId: newId(),
    domainId,
    teamId,
    name: input.name,
    settings: settingsOf(input),
    token: randomBase62(32),
    now: formatTimestamp(now),
    expiresAt: formatTimestamp(new Date(now.getTime() + CLAIM_LIFETIME_MS)),
  };
  const verdict = domainClaimDecider.decide(command, domainClaimDecider.initialState);
  if (isDomainError(verdict)) throw new DomainRejection(verdict);
  const first = verdict[0]!;
  const name = first.type === "DomainClaimCreated" ? first.data.name : input.name;
  const holder = await domainHolding(deps.store, name);
  if (holder?.teamId === teamId) throw new TidingsError("domain_name_taken", `The domain \`${name}\` is already registered by your team.`);
  const stream = latestClaimStream(name);
  const previous = await reservedBy(deps.store, stream);
  await reserve(deps.store, stream, domainId, metadata, { stillHeld: async () => false });
  let { position } = await claimCommand(deps, domainId, command, metadata);
  const older = previous ? await loadClaim(deps.store, previous) : undefined;
  if (older && older.status !== "none") {
    const superseded = await claimCommand(
      deps,
      older.domainId,
      { type: "SupersedeDomainClaim", by: domainId, now: command.now },
      { ...metadata, teamId: older.teamId },
    );
    position = superseded.position ?? position;
  }
  return { claim: await findClaim(deps.store, teamId, domainId), ...(position ? { position } : {}) };
}

/**
 * `POST /domains/:domainId/claim/verify`: checks the TXT record and the holder's use of the name, then
 * moves ownership. Safe to repeat: a verified claim whose move was interrupted picks up where it stopped.
 */
export async function verifyDomainClaim(deps: ClaimDeps, teamId: string, domainId: string, metadata: EventMetadata): Promise<ClaimOutcome> {
  let claim = await findClaim(deps.store, teamId, domainId);
  let checked: Position | undefined;
  if (isOpenClaim(claim.status)) {
    const now = deps.clock.now();
    const missing = await missingClaimRecord(deps.config.DNS_SERVERS, claim.record);
    const holder = missing ? undefined : await domainHolding(deps.store, claim.name);
    const blocker = holder && holder.teamId !== teamId ? await holderBlocker(deps, holder.teamId, claim.name, now) : undefined;
    const check = missing
      ? { kind: "failed" as const, reason: missing }
      : blocker
        ? { kind: "blocked" as const, reason: blocker }
        : { kind: "verified" as const, previousDomainId: holder?.domainId ?? null, previousTeamId: holder?.teamId ?? null };
    ({ position: checked } = await claimCommand(
      deps,
      domainId,
      { type: "RecordDomainClaimCheck", teamId, check, now: formatTimestamp(now) },
      metadata,
    ));
    claim = await findClaim(deps.store, teamId, domainId);
  }
  const position = claim.status === "verified" ? ((await moveOwnership(deps, claim, metadata)) ?? checked) : checked;
  return { claim: await findClaim(deps.store, teamId, domainId), ...(position ? { position } : {}) };
}

/**
 * The holder's use of the name, from the emails read model once it holds every send accepted before this
 * check, by any api process: a mail scheduled a moment ago that it has not applied yet would let the
 * claim through. No stream lists a team's mail by sender domain, so the read model is the only place to ask.
 */
async function holderBlocker(deps: ClaimDeps, holderTeamId: string, name: string, now: Date): Promise<ClaimBlockedReason | undefined> {
  if (!(await deps.catchUp(["emails"])))
    throw new TidingsError(
      "service_unavailable",
      `The use of \`${name}\` by its holder cannot be checked yet: the read models are behind. Verify again in a moment.`,
    );
  return claimBlocker(deps.database, holderTeamId, name, now);
}

/**
 * The move, each step idempotent so a retry finishes it: the name's reservation passes to the claimant
 * in one append (the atomic step: from then on the name is the claimant's), the holder's domain is
 * deleted with the claim named as the reason (in the holder team's events), the placeholder becomes a
 * full domain with a fresh DKIM key (in the claimant's), and the claim completes.
 */
async function moveOwnership(deps: ClaimDeps, claim: LiveDomainClaim, metadata: EventMetadata): Promise<Position | undefined> {
  const previous = claim.previous!;
  const now = formatTimestamp(deps.clock.now());
  const moved = await reserve(deps.store, domainNameStream(claim.name), claim.domainId, metadata, {
    stillHeld: async (owner) => owner !== previous.domainId,
  });
  if (!moved.won)
    throw new TidingsError(
      "resource_locked",
      `The domain \`${claim.name}\` changed hands while the claim was being verified; verify again.`,
    );
  let position: Position | undefined;
  if (previous.domainId && previous.teamId) {
    const old = await loadDomain(deps.store, previous.domainId);
    if (old.status === "active") {
      const holderMetadata = { ...metadata, teamId: previous.teamId };
      const command = { type: "DeleteDomain" as const, teamId: previous.teamId, now, claimedBy: claim.domainId };
      ({ position } = await handleCommand({
        store: deps.store,
        streamId: domainStream(previous.domainId),
        decider: domainDecider,
        command,
        metadata: holderMetadata,
      }));
    }
  }
  if ((await loadDomain(deps.store, claim.domainId)).status === "none") {
    const targets = recordTargets(deps.config);
    const key = await generateDkimKey(sealingSecret(deps));
    const command = {
      type: "CreateDomain" as const,
      domainId: claim.domainId,
      teamId: claim.teamId,
      name: claim.name,
      settings: claim.settings,
      targets,
      dkim: { selector: targets.dkimSelector, ...key },
      now,
    };
    const created = await handleCommand({
      store: deps.store,
      streamId: domainStream(claim.domainId),
      decider: domainDecider,
      command,
      metadata,
    });
    position = created.position ?? position;
  }
  // The last write is the one to wait for: a read right after the answer must see the claim completed too.
  const completed = await claimCommand(deps, claim.domainId, { type: "CompleteDomainClaim", now }, metadata);
  return completed.position ?? position;
}
