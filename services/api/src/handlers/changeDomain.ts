import { formatTimestamp, newId, TidingsError } from "@tidings/core";
import { commandNow, commandRunner, release, type Changed } from "@tidings/commands";
import { domainDecider, domainStream, type DomainChanges, type LiveDomain } from "@tidings/domain";
import type { EventMetadata } from "@tidings/eventstore";
import type { DomainDeps } from "./createDomain.js";
import { domainNameStream, findDomain } from "../lookups/domainStreams.js";

async function existing(deps: Pick<DomainDeps, "store">, teamId: string, domainId: string): Promise<LiveDomain> {
  const domain = await findDomain(deps.store, teamId, domainId);
  if (!domain) throw new TidingsError("not_found", "Domain not found");
  return domain;
}

const run = commandRunner(domainStream, domainDecider);

export async function updateDomain(
  deps: DomainDeps,
  teamId: string,
  domainId: string,
  changes: DomainChanges,
  metadata: EventMetadata,
): Promise<Changed> {
  await existing(deps, teamId, domainId);
  return run(deps.store, domainId, { type: "UpdateDomain", teamId, changes, now: commandNow(deps) }, metadata);
}

/** Deletes the domain, then gives its name up; a crash between the two leaves a claim the next registrant takes over. */
export async function deleteDomain(deps: DomainDeps, teamId: string, domainId: string, metadata: EventMetadata): Promise<Changed> {
  const domain = await existing(deps, teamId, domainId);
  const deleted = await run(deps.store, domainId, { type: "DeleteDomain", teamId, now: commandNow(deps) }, metadata);
  await release(deps.store, domainNameStream(domain.name), domainId, metadata);
  return deleted;
}

/** Starts a check; the verification saga resolves the records and re-checks until verified or the window closes. */
export async function verifyDomain(deps: DomainDeps, teamId: string, domainId: string, metadata: EventMetadata): Promise<Changed> {
  await existing(deps, teamId, domainId);
  const started = deps.clock.now();
  const deadline = formatTimestamp(new Date(started.getTime() + deps.config.DOMAIN_VERIFY_WINDOW_MS));
  return run(
    deps.store,
    domainId,
    { type: "StartDomainVerification", teamId, verificationId: newId(), now: formatTimestamp(started), deadline },
    metadata,
  );
}
