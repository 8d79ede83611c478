import { newId, type Clock } from "@tidings/core";
import { continuing, sagaMetadata, type EventChain } from "../sagaMetadata.js";
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

/**
 * A run with the revision it was read at, so the runner can append its next step without reading again, and
 * the chain its next event continues: the run's (the request whose event started it), caused by its last event.
 */
export interface LoadedRun {
  state: AutomationRunState;
  revision: bigint | "no_stream";
  /** Null for a run not started. */
  chain: EventChain | null;
}

export async function loadRunAt(store: EventStore, runId: string): Promise<LoadedRun> {
  const recorded = await store.readStream(automationRunStream(runId));
  const state = fold(
    automationRunDecider,
    recorded.map((e) => ({ type: e.type, data: e.data }) as AutomationRunEvent),
  );
  if (recorded.length === 0) return { state, revision: "no_stream", chain: null };
  return { state, revision: recorded[recorded.length - 1]!.revision, chain: continuing(recorded) };
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
  const events = decided.map((e) => ({ id: newId(), type: e.type, data: e.data, metadata }));
  try {
    const { nextExpectedRevision } = await store.append(automationRunStream(runId), events, loaded.revision);
    return {
      state: decided.reduce(automationRunDecider.evolve, loaded.state),
      revision: nextExpectedRevision,
      chain: { correlationId: metadata.correlationId!, causationId: events[events.length - 1]!.id },
    };
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return undefined;
    throw error;
  }
}

/** Events the runner appends, and those of its steps (emails, contact changes), in the run's chain. */
export const runMetadata = (teamId: string, chain: EventChain, clock: Clock): EventMetadata =>
  sagaMetadata(clock, "automations", { teamId, ...chain });

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
