import { formatTimestamp, newId, type Clock } from "@tidings/core";
import { DomainRejection, handleCommand, loadState } from "@tidings/commands";
import {
  automationRunDecider,
  automationRunStream,
  fold,
  isDomainError,
  type AutomationRunCommand,
  type AutomationRunEvent,
  type AutomationRunState,
} from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore } from "@tidings/eventstore";

export const loadRun = (store: EventStore, runId: string): Promise<AutomationRunState> =>
  loadState(store, automationRunStream(runId), automationRunDecider);

/** A run with the revision it was read at, so the runner can append its next step without reading again. */
export interface LoadedRun {
  state: AutomationRunState;
  revision: bigint | "no_stream";
}

export async function loadRunAt(store: EventStore, runId: string): Promise<LoadedRun> {
  const recorded = await store.readStream(automationRunStream(runId));
  const state = fold(
    automationRunDecider,
    recorded.map((e) => ({ type: e.type, data: e.data }) as AutomationRunEvent),
  );
  return { state, revision: recorded.length === 0 ? "no_stream" : recorded[recorded.length - 1]!.revision };
}

/**
 * Appends what the decider decides on `loaded`, at the revision it was read at, and returns the run as it
 * then is; undefined when another writer appended first, and the caller must read the run again.
 */
export async function decideOn(
  store: EventStore,
  runId: string,
  loaded: LoadedRun,
  command: AutomationRunCommand,
  metadata: EventMetadata,
): Promise<LoadedRun | undefined> {
  const decided = automationRunDecider.decide(command, loaded.state);
  if (isDomainError(decided)) throw new DomainRejection(decided);
  if (decided.length === 0) return loaded;
  try {
    const { nextExpectedRevision } = await store.append(
      automationRunStream(runId),
      decided.map((e) => ({ id: newId(), type: e.type, data: e.data, metadata })),
      loaded.revision,
    );
    return { state: decided.reduce(automationRunDecider.evolve, loaded.state), revision: nextExpectedRevision };
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return undefined;
    throw error;
  }
}

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
  await handleCommand({
    store,
    streamId: automationRunStream(runId),
    decider: automationRunDecider,
    command,
    metadata,
    likelyNew: command.type === "StartRun",
  });
}

export const runTimerKey = (runId: string, stepKey: string) => `automation-run:${runId}:${stepKey}`;
