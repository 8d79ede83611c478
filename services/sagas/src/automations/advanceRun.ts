import { formatTimestamp, parseTimestamp, type Clock, type Logger } from "@tidings/core";
import type { DataKeys, SubjectHasher } from "@tidings/privacy";
import { loadState } from "@tidings/commands";
import { automationDecider, automationStream, type ActiveRun, type AutomationRunCommand } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import type { SuppressedRecipients } from "@tidings/sending";
import type { Timers } from "../timers/index.js";
import { executeStep } from "./executeStep.js";
import type { ParkedRuns } from "./parkedRuns.js";
import { decideOn, decideRun, loadRunAt, runMetadata, runTimerKey, type LoadedRun } from "./runCommands.js";
import type { SendingPauseOf } from "@tidings/projections";

export interface RunnerDeps {
  store: EventStore;
  keys: DataKeys;
  hashSubject: SubjectHasher;
  timers: Timers;
  parked: ParkedRuns;
  clock: Clock;
  allowUnverifiedFrom: boolean;
  suppressed: SuppressedRecipients;
  /** A send step of a team or domain paused for its reputation fails (README, "Reputation guardrails"). */
  paused: SendingPauseOf;
  logger: Logger;
}

/** What a timer that resumes a run carries. */
export interface RunTimerPayload {
  kind: "automation-step";
  runId: string;
  stepKey: string;
}

/** The longest path a graph can have: a bound on the loop, should a bug ever keep a run from moving. */
const maxStepsPerAdvance = 101;

/** A parked run is findable (by event, by automation) and its timer set; both are idempotent. */
async function arm(deps: RunnerDeps, run: ActiveRun): Promise<void> {
  const waiting = run.waiting!;
  await deps.parked.park({
    runId: run.runId,
    automationId: run.automationId,
    teamId: run.teamId,
    contactId: run.trigger.contactId,
    stepKey: waiting.key,
    eventName: waiting.eventName,
  });
  if (waiting.until !== null) {
    const payload: RunTimerPayload = { kind: "automation-step", runId: run.runId, stepKey: waiting.key };
    await deps.timers.schedule(runTimerKey(run.runId, waiting.key), parseTimestamp(waiting.until)!, payload);
  }
}

function commandFor(outcome: Awaited<ReturnType<typeof executeStep>>, key: string, now: string): AutomationRunCommand {
  switch (outcome.kind) {
    case "complete":
      return { type: "CompleteStep", key, outcome: outcome.outcome, output: outcome.output, branch: outcome.branch ?? "default", now };
    case "park":
      return {
        type: "ParkStep",
        key,
        eventName: outcome.eventName,
        until: outcome.until === null ? null : formatTimestamp(outcome.until),
        now,
      };
    case "fail":
      return { type: "FailStep", key, error: outcome.error, now };
  }
}

/**
 * Takes a run as far as it can go now: step after step until it parks or ends. Safe to call any number of
 * times, from anywhere: each step's effect is keyed by the run and the step, and each record of it is
 * appended at the revision read, so a step is executed and recorded once however often this runs.
 * `from`: the run as its caller just appended it, which need not be read back.
 */
export async function advanceRun(deps: RunnerDeps, runId: string, from?: LoadedRun): Promise<void> {
  let loaded = from ?? (await loadRunAt(deps.store, runId));
  for (let i = 0; i < maxStepsPerAdvance; i++) {
    const run = loaded.state;
    if (run.status !== "running") return;
    if (run.waiting) return arm(deps, run);
    const step = run.graph.steps.find((s) => s.key === run.current)!;
    const metadata = runMetadata(run.teamId, loaded.chain!, deps.clock);
    const outcome = await executeStep(deps, run, step, metadata);
    // Lost to a concurrent writer: read again; the step, if still current, runs again and finds its effect done.
    loaded =
      (await decideOn(deps.store, runId, loaded, commandFor(outcome, step.key, formatTimestamp(deps.clock.now())), metadata)) ??
      (await loadRunAt(deps.store, runId));
  }
  deps.logger.error({ runId }, "automation run did not settle within its step bound");
}

/** Whether the run's automation may still go on: a disabled or deleted one cancels the runs it has parked. */
export async function automationGoesOn(store: EventStore, run: ActiveRun): Promise<boolean> {
  const automation = await loadState(store, automationStream(run.automationId), automationDecider);
  return automation.status === "active" && automation.automationStatus === "enabled";
}

/**
 * Moves a parked run on by `command` (the delay is over, the awaited event came, the wait timed out), or
 * cancels it when its automation was disabled meanwhile, then advances it. Stale resumes append nothing.
 * The step's timer and parked row go last (the row only if it still names this step): a process that dies
 * before leaves them for the timer's next firing or the redelivered event to find, and finish the advance.
 */
export async function resumeRun(
  deps: RunnerDeps,
  runId: string,
  stepKey: string,
  command: (run: ActiveRun) => AutomationRunCommand | undefined,
  /** The event that resumes it, if one does (a timer does not): the cause of what is appended. */
  cause?: { id: string },
): Promise<void> {
  const { state: run, chain } = await loadRunAt(deps.store, runId);
  if (run.status === "running" && run.waiting?.key === stepKey) {
    const metadata = runMetadata(run.teamId, { ...chain!, ...(cause ? { causationId: cause.id } : {}) }, deps.clock);
    const now = formatTimestamp(deps.clock.now());
    if (!(await automationGoesOn(deps.store, run))) {
      await decideRun(deps.store, runId, { type: "CancelRun", now }, metadata);
    } else {
      const resume = command(run);
      if (!resume) return;
      await decideRun(deps.store, runId, resume, metadata);
    }
  }
  await advanceRun(deps, runId);
  await deps.timers.cancel(runTimerKey(runId, stepKey));
  await deps.parked.release(runId, stepKey);
}
