import { formatTimestamp, type Clock } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { consumeEvents, type Bus, type Consumer } from "@tidings/bus";
import { pauseVerdict, reputationDecider, reputationStream, type PauseScope, type PauseThresholds } from "@tidings/domain";
import type { EventStore, RecordedEvent } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { NO_DIMENSION, outcomeCounts, readModels, scopePause } from "@tidings/projections";
import { reputationDurable, reputationEvents } from "../durables.js";
import type { ReadModelsAt } from "../readModelsAt.js";
import { reactingTo, sagaMetadata } from "../sagaMetadata.js";

/** What the watcher reads: the outcomes it counts, and the pauses with the time each was lifted. */
export const reputationReadModels = ["email_metrics", "sending_pauses"];

export interface ReputationWatchDeps {
  store: EventStore;
  database: Database;
  clock: Clock;
  readModelsAt: ReadModelsAt;
  thresholds: PauseThresholds;
  windowHours: number;
}

interface Scope {
  scope: PauseScope;
  scopeId: string;
  domainId: string | null;
  domainName: string | null;
}

/**
 * Pauses the team and the sending domain of a bounced or complained-of email once their rate over the window
 * reaches its threshold (README, "Reputation guardrails"). Only a bounce or a complaint can raise a rate, so
 * only they are watched: a scope whose sample grows to the minimum on deliveries is paused at its next one.
 */
export async function watchReputation(deps: ReputationWatchDeps, event: RecordedEvent & { data: { emailId: string; teamId: string } }) {
  await deps.readModelsAt(reputationReadModels, event.position);
  const { emailId, teamId } = event.data;
  const email = await readModels(deps.database)
    .selectFrom("email_metric_emails")
    .select("domain_id")
    .where("id", "=", emailId)
    .executeTakeFirst();
  const domainId = email && email.domain_id !== NO_DIMENSION ? email.domain_id : null;
  const scopes: Scope[] = [{ scope: "team", scopeId: teamId, domainId: null, domainName: null }];
  if (domainId) scopes.push({ scope: "domain", scopeId: domainId, domainId, domainName: await domainName(deps.database, domainId) });
  for (const scope of scopes) await watchScope(deps, teamId, scope, event);
}

async function watchScope(deps: ReputationWatchDeps, teamId: string, scope: Scope, event: RecordedEvent): Promise<void> {
  const { paused, liftedAt } = await scopePause(deps.database, scope.scopeId);
  if (paused) return;
  const windowStart = new Date(deps.clock.now().getTime() - deps.windowHours * 3_600_000);
  const since = liftedAt && liftedAt > windowStart ? liftedAt : windowStart;
  const verdict = pauseVerdict(await outcomeCounts(deps.database, { teamId, domainId: scope.domainId, since }), deps.thresholds);
  if (!verdict) return;
  await handleCommand({
    store: deps.store,
    streamId: reputationStream(scope.scopeId),
    decider: reputationDecider,
    command: {
      type: "PauseSending",
      scope: scope.scope,
      scopeId: scope.scopeId,
      teamId,
      domainName: scope.domainName,
      ...verdict,
      windowHours: deps.windowHours,
      now: formatTimestamp(deps.clock.now()),
    },
    metadata: sagaMetadata(deps.clock, "reputation", { teamId, ...reactingTo(event) }),
  });
}

async function domainName(database: Database, domainId: string): Promise<string | null> {
  const row = await readModels(database).selectFrom("domains").select("name").where("id", "=", domainId).executeTakeFirst();
  return row?.name ?? null;
}

/** One durable consumer per event type: NATS 2.9 takes one filter subject per consumer. */
export function startReputationWatch(options: { bus: Bus; deps: ReputationWatchDeps }): Promise<Consumer[]> {
  const { bus, deps } = options;
  return Promise.all(
    reputationEvents.map((type) =>
      consumeEvents(bus, { durable: reputationDurable(type), category: "email", type, maxDeliver: 10, concurrency: 4 }, (event) =>
        watchReputation(deps, event),
      ),
    ),
  );
}
