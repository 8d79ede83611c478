import { formatTimestamp, type Clock } from "@tidings/core";
import { handleCommand, loadState } from "@tidings/commands";
import { automationRunDecider, automationRunStream, type AutomationRunCommand, type AutomationRunState } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";

export const loadRun = (store: EventStore, runId: string): Promise<AutomationRunState> => loadState(store, automationRunStream(runId), automationRunDecider);

/** Events the runner appends: the run is the correlation, the received custom event the first cause. */
export const runMetadata = (teamId: string, runId: string, causationId: string, clock: Clock): EventMetadata => ({
  teamId,
  actor: "saga:automations",
  correlationId: runId,
  causationId,
  occurredAt: formatTimestamp(clock.now()),
});

/**
 * Appends what the run decider decides, at the revision it read. A racing writer (a timer and an event
 * resuming the same run) makes one of them decide again on the new state, where its command is stale
 * and appends nothing.
 */
export async function decideRun(store: EventStore, runId: string, command: AutomationRunCommand, metadata: EventMetadata): Promise<void> {
  await handleCommand({ store, streamId: automationRunStream(runId), decider: automationRunDecider, command, metadata, likelyNew: command.type === "StartRun" });
}

export const runTimerKey = (runId: string, stepKey: string) => `automation-run:${runId}:${stepKey}`;
