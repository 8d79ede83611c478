import { deterministicId, formatTimestamp, grouped, parseTimestamp, rowsByInput } from "@tidings/core";
import { loadState } from "@tidings/commands";
import { loadContact } from "@tidings/audience";
import {
  automationDecider,
  automationRunDecider,
  automationStream,
  evaluateRule,
  triggerEventName,
  type CustomEventReceived,
  type LiveAutomation,
  type Rule,
} from "@tidings/domain";
import { consumeEvents, type Bus, type Consumer } from "@tidings/bus";
import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { automationChangesDurable, automationEventsDurable } from "../durables.js";
import { heldMessages } from "../heldMessages.js";
import { advanceRun, resumeRun, type RunnerDeps, type RunTimerPayload } from "./advanceRun.js";
import { decideOn, decideRun, loadRunAt, runMetadata, runTimerKey, type LoadedRun } from "./runCommands.js";
import { reactingTo } from "../sagaMetadata.js";
import type { RecordedEvent } from "@tidings/eventstore";
import { stepContext } from "./stepContext.js";
import type { ReadModelsAt } from "../readModelsAt.js";

type Received = CustomEventReceived["data"];

/** One run per automation and received event: a redelivered event finds its runs started. */
export const runIdOf = (automationId: string, receivedEventId: string) => deterministicId("automation-run", automationId, receivedEventId);

/**
 * The enabled automations received events trigger, asked for a burst of events in one statement. The read
 * model is only the index (docs/architecture.md §1: a lookup); each automation's own stream decides whether it still
 * starts a run, and with which graph.
 */
function triggeredBy(database: Database): (received: Received) => Promise<string[]> {
  return grouped(
    async (events: Received[]) => {
      const { rows } = await sql<{ ord: number; id: string }>`
        SELECT (k.ord - 1)::int AS ord, a.id::text AS id
        FROM unnest(${events.map((e) => e.teamId)}::uuid[], ${events.map((e) => e.name)}::text[]) WITH ORDINALITY AS k(team_id, name, ord)
        JOIN automations a ON a.team_id = k.team_id AND a.trigger_event = k.name AND a.status = 'enabled'`.execute(database.db);
      return rowsByInput(
        events.length,
        rows,
        (row) => row.ord,
        (row) => row.id,
      );
    },
    { inFlight: 2, max: 500 },
  );
}

async function startRun(deps: RunnerDeps, automationId: string, received: Received, event: RecordedEvent): Promise<void> {
  const state = await loadState(deps.store, automationStream(automationId), automationDecider);
  if (state.status !== "active" || state.teamId !== received.teamId || state.automationStatus !== "enabled") return;
  const automation = state as LiveAutomation;
  if (triggerEventName(automation) !== received.name) return;
  const runId = runIdOf(automationId, received.receivedEventId);
  const trigger = {
    receivedEventId: received.receivedEventId,
    name: received.name,
    contactId: received.contactId,
    payload: received.payload,
  };
  const command = {
    type: "StartRun" as const,
    runId,
    automationId,
    teamId: received.teamId,
    version: automation.version,
    graph: automation,
    trigger,
    now: formatTimestamp(deps.clock.now()),
  };
  // Started here, the run goes on from what was appended without reading it back; a run an earlier
  // delivery of the event started conflicts, and advanceRun reads it.
  // The run is in the chain of the request that sent the event, and every event of it keeps that correlation.
  const fresh: LoadedRun = { state: automationRunDecider.initialState, revision: "no_stream", chain: null };
  const started = await decideOn(deps.store, runId, fresh, command, runMetadata(received.teamId, reactingTo(event), deps.clock));
  await advanceRun(deps, runId, started);
}

/**
 * Runs parked on a `wait_for_event` for this contact and event name move on by `event_received`, if the
 * event came after they parked and passes the step's `filter_rule`.
 */
async function deliverAwaited(deps: RunnerDeps, received: Received, event: RecordedEvent): Promise<void> {
  const awaiting = await deps.parked.awaiting(received.teamId, received.contactId, received.name);
  if (awaiting.length === 0) return;
  const receivedAt = parseTimestamp(received.receivedAt)!.getTime();
  const contact = await loadContact(deps.store, received.contactId);
  for (const { runId, stepKey } of awaiting) {
    await resumeRun(
      deps,
      runId,
      stepKey,
      (run) => {
        if (run.waiting!.eventName !== received.name || receivedAt < parseTimestamp(run.waiting!.since)!.getTime()) return undefined;
        const filter = run.graph.steps.find((s) => s.key === stepKey)?.config.filter_rule as Rule | undefined;
        const live = contact.status === "active" ? contact : undefined;
        if (
          filter &&
          !evaluateRule(
            filter,
            stepContext(run, live, {
              payload: received.payload,
              event: { id: received.receivedEventId, name: received.name, payload: received.payload },
            }),
          )
        )
          return undefined;
        const output = { event_id: received.receivedEventId, payload: received.payload };
        return {
          type: "CompleteStep",
          key: stepKey,
          outcome: "completed",
          output,
          branch: "event_received",
          now: formatTimestamp(deps.clock.now()),
        };
      },
      event,
    );
  }
}

/** A run's timer: the delay is over, or the wait timed out (the `timeout` branch). */
export function fireRunTimer(deps: RunnerDeps, payload: RunTimerPayload): Promise<void> {
  return resumeRun(deps, payload.runId, payload.stepKey, (run) => {
    const timedOut = run.waiting!.eventName !== null;
    const now = formatTimestamp(deps.clock.now());
    return {
      type: "CompleteStep",
      key: payload.stepKey,
      outcome: "completed",
      output: timedOut ? { timed_out: true } : null,
      branch: timedOut ? "timeout" : "default",
      now,
    };
  });
}

/**
 * Disabling, stopping or deleting an automation cancels the runs it has parked, as many as
 * there are. Once `stopping` is aborted it cancels no more and throws its reason; the redelivered message
 * finds only the runs still parked.
 */
async function cancelParkedRuns(deps: RunnerDeps, automationId: string, change: RecordedEvent, stopping: AbortSignal): Promise<void> {
  const state = await loadState(deps.store, automationStream(automationId), automationDecider);
  if (state.status === "active" && state.automationStatus === "enabled") return;
  for (const runId of await deps.parked.ofAutomation(automationId)) {
    stopping.throwIfAborted();
    const { state: run, chain } = await loadRunAt(deps.store, runId);
    if (run.status === "none") continue;
    const key = run.waiting?.key;
    if (run.status === "running")
      await decideRun(
        deps.store,
        runId,
        { type: "CancelRun", now: formatTimestamp(deps.clock.now()) },
        runMetadata(run.teamId, { ...chain!, causationId: change.id }, deps.clock),
      );
    if (key) {
      await deps.timers.cancel(runTimerKey(runId, key));
      await deps.parked.release(runId, key);
    }
  }
}

/**
 * The automation runner: received custom events start runs and resume the runs awaiting them; changes to
 * an automation cancel its parked runs when it stops. Timers resume runs through `fireRunTimer`.
 */
export async function startAutomationRunner(options: {
  bus: Bus;
  database: Database;
  readModelsAt: ReadModelsAt;
  deps: RunnerDeps;
  concurrency: number;
}): Promise<Consumer[]> {
  const { bus, database, readModelsAt, deps, concurrency } = options;
  const automationsTriggeredBy = triggeredBy(database);
  return Promise.all([
    // A short ack wait kept by a heartbeat: the events a crashed process held start their runs within seconds.
    consumeEvents(
      bus,
      {
        durable: automationEventsDurable,
        category: "customevent",
        type: "CustomEventReceived",
        ...heldMessages,
        concurrency,
      },
      async (event) => {
        const received = event.data;
        // The index must hold every automation created or enabled before the event: one enabled a moment
        // earlier is due to start a run.
        await readModelsAt(["automations"], event.position);
        // Side by side: a run this event starts parks after the event, so it is never one the event resumes.
        await Promise.all([
          automationsTriggeredBy(received).then((ids) => Promise.all(ids.map((id) => startRun(deps, id, received, event)))),
          deliverAwaited(deps, received, event),
        ]);
      },
    ),
    consumeEvents(bus, { durable: automationChangesDurable, category: "automation", maxDeliver: 10, concurrency: 2 }, (event, message) =>
      cancelParkedRuns(deps, event.data.automationId, event, message.stopping),
    ),
  ]);
}
