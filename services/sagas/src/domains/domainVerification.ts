import { deterministicId, formatTimestamp, parseTimestamp, type Clock, type Logger } from "@tidings/core";
import { handleCommand, loadState } from "@tidings/commands";
import { domainDecider, domainStream, type DomainCommand } from "@tidings/domain";
import type { EventStore, RecordedEvent } from "@tidings/eventstore";
import { consumeEvents, type Bus, type Consumer } from "@tidings/bus";
import { domainVerificationDurable } from "../durables.js";
import type { RecordLookup } from "./domainRecordLookup.js";
import { continuing, sagaMetadata } from "../sagaMetadata.js";
import type { Timers } from "../timers/index.js";

export interface DomainVerificationDeps {
  store: EventStore;
  clock: Clock;
  timers: Timers;
  lookup: RecordLookup;
  logger: Logger;
  /** DOMAIN_RECHECK_MS: between checks of a domain not yet verified. */
  recheckMs: number;
  /** DOMAIN_VERIFIED_RECHECK_MS: between checks of a verified domain. */
  verifiedRecheckMs: number;
}

export const domainCheckTimerKey = (domainId: string) => `domain-check:${domainId}`;
export type DomainCheckTimer = { kind: "check-domain"; domainId: string };

const loadDomain = (store: EventStore, domainId: string) => loadState(store, domainStream(domainId), domainDecider);

/**
 * Checks, first or timed, continue the chain of the request that started the verification (its
 * DomainVerificationStarted), each caused by the stream's last event: the start, or the previous check.
 */
function run(deps: DomainVerificationDeps, state: { domainId: string; teamId: string }, command: DomainCommand) {
  const metadata = (_state: unknown, recorded: RecordedEvent[]) => {
    const started = recorded.findLast((e) => e.type === "DomainVerificationStarted") ?? recorded[0]!;
    return sagaMetadata(deps.clock, "domain-verification", { teamId: state.teamId, ...continuing(recorded, started) });
  };
  return handleCommand({ store: deps.store, streamId: domainStream(state.domainId), decider: domainDecider, command, metadata });
}

/**
 * One round of lookups for every record, recorded under `checkId`, then the next round scheduled. Safe to
 * run twice with one `checkId` (a redelivered message, a timer fired again): the decider records a round
 * once, and scheduling the same timer again changes nothing that matters.
 */
export async function checkDomain(deps: DomainVerificationDeps, domainId: string, checkId: string): Promise<void> {
  const before = await loadDomain(deps.store, domainId);
  if (before.status !== "active") return deps.timers.cancel(domainCheckTimerKey(domainId));
  if (!before.checkIds.has(checkId)) {
    const results = await Promise.all(before.records.map(deps.lookup));
    await run(deps, before, { type: "RecordDomainCheck", checkId, results, now: formatTimestamp(deps.clock.now()) });
    deps.logger.debug({ domainId, results: results.map((r) => `${r.key}:${r.status}`) }, "domain records checked");
  }
  await scheduleNextCheck(deps, domainId);
}

/**
 * A verified domain is checked again after a day (a vanished DKIM record makes it ineligible); any other
 * every few minutes until its verification's deadline, and then daily if it can send, else marked failed.
 */
async function scheduleNextCheck(deps: DomainVerificationDeps, domainId: string): Promise<void> {
  const state = await loadDomain(deps.store, domainId);
  const key = domainCheckTimerKey(domainId);
  if (state.status !== "active" || state.verification === null) return deps.timers.cancel(key);
  const payload: DomainCheckTimer = { kind: "check-domain", domainId };
  const now = deps.clock.now().getTime();
  if (state.domainStatus === "verified") return deps.timers.schedule(key, new Date(now + deps.verifiedRecheckMs), payload);
  const deadline = parseTimestamp(state.verification.deadline)!.getTime();
  if (now < deadline) return deps.timers.schedule(key, new Date(Math.min(now + deps.recheckMs, deadline)), payload);
  // Past the window, a domain that can send (partially verified) keeps its daily check; one that cannot fails.
  if (state.sendable) return deps.timers.schedule(key, new Date(now + deps.verifiedRecheckMs), payload);
  await run(deps, state, {
    type: "FailDomainVerification",
    verificationId: state.verification.verificationId,
    now: formatTimestamp(new Date(now)),
  });
  await deps.timers.cancel(key);
}

/** A check timer fired: its round is named after the moment it was due, so a second firing records nothing. */
export function fireDomainCheck(deps: DomainVerificationDeps, timer: DomainCheckTimer, dueAt: Date): Promise<void> {
  return checkDomain(deps, timer.domainId, deterministicId(timer.domainId, `check@${dueAt.toISOString()}`));
}

/** The verification saga: POST /domains/:id/verify starts a round at once; timers carry the re-checks. */
export async function startDomainVerificationSaga(options: { bus: Bus; deps: DomainVerificationDeps }): Promise<Consumer> {
  return consumeEvents(
    options.bus,
    { durable: domainVerificationDurable, category: "domain", type: "DomainVerificationStarted", maxDeliver: 10, concurrency: 4 },
    ({ data }) => checkDomain(options.deps, data.domainId, deterministicId(data.verificationId, "first-check")),
  );
}
