import { formatTimestamp, newId, TidingsError } from "@tidings/core";
import { handleCommand, release } from "@tidings/commands";
import { domainDecider, domainStream, type DomainChanges, type DomainCommand, type LiveDomain } from "@tidings/domain";
import type { EventMetadata, Position } from "@tidings/eventstore";
import type { DomainDeps } from "./createDomain.js";
import { domainNameStream, findDomain } from "../lookups/domainStreams.js";

export interface ChangedDomain {
  id: string;
  position?: Position;
}

async function existing(deps: Pick<DomainDeps, "store">, teamId: string, domainId: string): Promise<LiveDomain> {
  const domain = await findDomain(deps.store, teamId, domainId);
  if (!domain) throw new TidingsError("not_found", "Domain not found");
  return domain;
}

async function run(deps: DomainDeps, domainId: string, command: DomainCommand, metadata: EventMetadata): Promise<ChangedDomain> {
  const { position } = await handleCommand({ store: deps.store, streamId: domainStream(domainId), decider: domainDecider, command, metadata });
  return { id: domainId, ...(position ? { position } : {}) };
}

const now = (deps: DomainDeps) => formatTimestamp(deps.clock.now());

export async function updateDomain(deps: DomainDeps, teamId: string, domainId: string, changes: DomainChanges, metadata: EventMetadata): Promise<ChangedDomain> {
  await existing(deps, teamId, domainId);
  return run(deps, domainId, { type: "UpdateDomain", teamId, changes, now: now(deps) }, metadata);
}

/** Deletes the domain, then gives its name up; a crash between the two leaves a claim the next registrant takes over. */
export async function deleteDomain(deps: DomainDeps, teamId: string, domainId: string, metadata: EventMetadata): Promise<ChangedDomain> {
  const domain = await existing(deps, teamId, domainId);
  const deleted = await run(deps, domainId, { type: "DeleteDomain", teamId, now: now(deps) }, metadata);
  await release(deps.store, domainNameStream(domain.name), domainId, metadata);
  return deleted;
}

/** Starts a check; the verification saga resolves the records and re-checks until verified or the window closes. */
export async function verifyDomain(deps: DomainDeps, teamId: string, domainId: string, metadata: EventMetadata): Promise<ChangedDomain> {
  await existing(deps, teamId, domainId);
  const started = deps.clock.now();
  const deadline = formatTimestamp(new Date(started.getTime() + deps.config.DOMAIN_VERIFY_WINDOW_MS));
  return run(deps, domainId, { type: "StartDomainVerification", teamId, verificationId: newId(), now: formatTimestamp(started), deadline }, metadata);
}
