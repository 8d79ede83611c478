import { DomainError, type Decider } from "../decider.js";
import { nextStepKey, triggerStep, type AutomationGraph, type ConnectionType } from "../automation/steps.js";
import type { AutomationRunEvent, RunStatus, RunTrigger } from "./events.js";

export const automationRunStream = (runId: string) => `automationrun-${runId}`;

/** What a run starts from and keeps: the automation's graph at `version`, and what triggered it. */
interface RunBasis {
  runId: string;
  automationId: string;
  teamId: string;
  version: number;
  graph: AutomationGraph;
  trigger: RunTrigger;
}

export type AutomationRunCommand =
  | ({ type: "StartRun"; now: string } & RunBasis)
  | {
      type: "CompleteStep";
      key: string;
      outcome: "completed" | "skipped";
      output: Record<string, unknown> | null;
      branch: ConnectionType;
      now: string;
    }
  | { type: "ParkStep"; key: string; eventName: string | null; until: string | null; now: string }
  | { type: "FailStep"; key: string; error: string; now: string }
  | { type: "CancelRun"; now: string };

export interface RunWait {
  key: string;
  eventName: string | null;
  until: string | null;
  /** When the run parked: an awaited event received earlier does not count. */
  since: string;
}

export interface ActiveRun extends RunBasis {
  status: RunStatus;
  /** The step the run is on, and since when (its start is the previous step's end). */
  current: string;
  currentSince: string;
  waiting: RunWait | null;
  visited: string[];
  /** What each completed step gave: later steps read it as `steps.<key>.…` (the event a wait received). */
  outputs: Record<string, Record<string, unknown> | null>;
}

export type AutomationRunState = { status: "none" } | ActiveRun;

const notStarted = () => new DomainError("not_found", "Run not found");

/** The events that move a run off `key` by `branch`: on to the next step, or to its end when there is none. */
function leave(state: ActiveRun, key: string, branch: ConnectionType, completed: AutomationRunEvent, now: string): AutomationRunEvent[] {
  if (nextStepKey(state.graph, key, branch) !== undefined) return [completed];
  const visited = new Set([...state.visited, key]);
  const skipped = state.graph.steps.filter((s) => !visited.has(s.key)).map((s) => s.key);
  return [completed, { type: "AutomationRunEnded", data: { runId: state.runId, status: "completed", skipped, endedAt: now } }];
}

const skippedFrom = (state: ActiveRun, also: string[] = []) => {
  const visited = new Set([...state.visited, ...also]);
  return state.graph.steps.filter((s) => !visited.has(s.key)).map((s) => s.key);
};

/**
 * A run moves one step at a time. Every command names the step it is about, and does nothing once the
 * run has moved past it: a redelivered message, a timer that fires twice or a resume racing a timeout
 * each append nothing, so no step is executed or recorded twice.
 */
export const automationRunDecider: Decider<AutomationRunCommand, AutomationRunEvent, AutomationRunState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    switch (event.type) {
      case "AutomationRunStarted": {
        const { runId, automationId, teamId, version, steps, connections, trigger, startedAt } = event.data;
        const graph = { steps, connections };
        const first = triggerStep(graph)!.key;
        return {
          status: "running",
          runId,
          automationId,
          teamId,
          version,
          graph,
          trigger,
          current: first,
          currentSince: startedAt,
          waiting: null,
          visited: [],
          outputs: {},
        };
      }
      case "AutomationRunStepWaiting":
        if (state.status === "none") return state;
        return {
          ...state,
          waiting: { key: event.data.key, eventName: event.data.eventName, until: event.data.until, since: event.data.since },
        };
      case "AutomationRunStepCompleted": {
        if (state.status === "none") return state;
        const next = nextStepKey(state.graph, event.data.key, event.data.branch);
        return {
          ...state,
          visited: [...state.visited, event.data.key],
          outputs: { ...state.outputs, [event.data.key]: event.data.output },
          waiting: null,
          current: next ?? event.data.key,
          currentSince: event.data.completedAt,
        };
      }
      case "AutomationRunStepFailed":
        if (state.status === "none") return state;
        return { ...state, visited: [...state.visited, event.data.key], waiting: null };
      case "AutomationRunEnded":
        if (state.status === "none") return state;
        return { ...state, status: event.data.status, waiting: null };
    }
  },
  decide(command, state) {
    if (command.type === "StartRun") {
      if (state.status !== "none") return [];
      const { runId, automationId, teamId, version, graph, trigger, now } = command;
      const started: AutomationRunEvent = {
        type: "AutomationRunStarted",
        data: { runId, automationId, teamId, version, ...graph, trigger, startedAt: now },
      };
      const run = automationRunDecider.evolve(state, started) as ActiveRun;
      const key = run.current;
      const output = { event_id: trigger.receivedEventId, event: trigger.name, contact_id: trigger.contactId };
      const completed: AutomationRunEvent = {
        type: "AutomationRunStepCompleted",
        data: { runId, key, outcome: "completed", output, branch: "default", startedAt: now, completedAt: now },
      };
      return [started, ...leave(run, key, "default", completed, now)];
    }
    if (state.status === "none") return notStarted();
    if (state.status !== "running") return [];
    switch (command.type) {
      case "CompleteStep": {
        if (command.key !== state.current || state.visited.includes(command.key)) return [];
        const { key, outcome, output, branch, now } = command;
        const completed: AutomationRunEvent = {
          type: "AutomationRunStepCompleted",
          data: { runId: state.runId, key, outcome, output, branch, startedAt: state.currentSince, completedAt: now },
        };
        return leave(state, key, branch, completed, now);
      }
      case "ParkStep":
        if (command.key !== state.current || state.waiting !== null || state.visited.includes(command.key)) return [];
        return [
          {
            type: "AutomationRunStepWaiting",
            data: { runId: state.runId, key: command.key, eventName: command.eventName, until: command.until, since: command.now },
          },
        ];
      case "FailStep":
        if (command.key !== state.current || state.visited.includes(command.key)) return [];
        return [
          {
            type: "AutomationRunStepFailed",
            data: { runId: state.runId, key: command.key, error: command.error, startedAt: state.currentSince, failedAt: command.now },
          },
          {
            type: "AutomationRunEnded",
            data: { runId: state.runId, status: "failed", skipped: skippedFrom(state, [command.key]), endedAt: command.now },
          },
        ];
      case "CancelRun":
        return [
          {
            type: "AutomationRunEnded",
            data: { runId: state.runId, status: "cancelled", skipped: skippedFrom(state), endedAt: command.now },
          },
        ];
    }
  },
};
