import { describe, it } from "vitest";
import { given, teamId } from "../testing/scenario.js";
import type { AutomationGraph } from "../automation/steps.js";
import { automationRunDecider, type AutomationRunCommand } from "./decider.js";
import type { AutomationRunEvent, RunTrigger } from "./events.js";

const runId = "11111111-1111-4111-8111-111111111111";
const automationId = "22222222-2222-4222-8222-222222222222";
const t0 = "2026-11-23 10:00:00.000000+00";
const t1 = "2026-11-23 10:00:01.000000+00";
const t2 = "2026-11-23 10:00:03.000000+00";

const graph: AutomationGraph = {
  steps: [
    { key: "start", type: "trigger", config: { event_name: "user.signed_up" } },
    { key: "pause", type: "delay", config: { duration: "2s" } },
    { key: "check", type: "condition", config: { type: "rule", field: "contact.plan", operator: "eq", value: "pro" } },
    { key: "pro", type: "send_email", config: { template: { id: "t2" } } },
    { key: "free", type: "send_email", config: { template: { id: "t3" } } },
  ],
  connections: [
    { from: "start", to: "pause", type: "default" },
    { from: "pause", to: "check", type: "default" },
    { from: "check", to: "pro", type: "condition_met" },
    { from: "check", to: "free", type: "condition_not_met" },
  ],
};
const trigger: RunTrigger = {
  receivedEventId: "44444444-4444-4444-8444-444444444444",
  name: "user.signed_up",
  contactId: "55555555-5555-4555-8555-555555555555",
  payload: { plan: "pro" },
};
const start: AutomationRunCommand = { type: "StartRun", runId, automationId, teamId, version: 3, graph, trigger, now: t0 };
const started: AutomationRunEvent[] = [
  { type: "AutomationRunStarted", data: { runId, automationId, teamId, version: 3, ...graph, trigger, startedAt: t0 } },
  {
    type: "AutomationRunStepCompleted",
    data: {
      runId,
      key: "start",
      outcome: "completed",
      output: { event_id: trigger.receivedEventId, event: "user.signed_up", contact_id: trigger.contactId },
      branch: "default",
      startedAt: t0,
      completedAt: t0,
    },
  },
];
const parked: AutomationRunEvent = {
  type: "AutomationRunStepWaiting",
  data: { runId, key: "pause", eventName: null, until: t2, since: t1 },
};
const pauseDone: AutomationRunEvent = {
  type: "AutomationRunStepCompleted",
  data: { runId, key: "pause", outcome: "completed", output: null, branch: "default", startedAt: t0, completedAt: t2 },
};
const complete = (key: string, branch: "default" | "condition_met" | "condition_not_met" = "default"): AutomationRunCommand => ({
  type: "CompleteStep",
  key,
  outcome: "completed",
  output: null,
  branch,
  now: t2,
});

describe("automation run decider", () => {
  it("starts with the graph it was given, and completes the trigger at once", () => given(automationRunDecider).when(start).then(started));
  it("starting again appends nothing (one run per automation and event)", () => given(automationRunDecider, started).when(start).then([]));
  it("parks on a delay once", () => {
    given(automationRunDecider, started).when({ type: "ParkStep", key: "pause", eventName: null, until: t2, now: t1 }).then([parked]);
    given(automationRunDecider, [...started, parked])
      .when({ type: "ParkStep", key: "pause", eventName: null, until: t2, now: t2 })
      .then([]);
  });
  it("a timer firing twice completes the delay once", () => {
    given(automationRunDecider, [...started, parked])
      .when(complete("pause"))
      .then([pauseDone]);
    given(automationRunDecider, [...started, parked, pauseDone])
      .when(complete("pause"))
      .then([]);
  });
  it("refuses to run ahead: a command about a step the run is not on appends nothing", () =>
    given(automationRunDecider, started).when(complete("pro")).then([]));
  it("ends completed at the last step, listing the branch not taken as skipped", () => {
    const checked: AutomationRunEvent = {
      type: "AutomationRunStepCompleted",
      data: { runId, key: "check", outcome: "completed", output: null, branch: "condition_met", startedAt: t2, completedAt: t2 },
    };
    given(automationRunDecider, [...started, parked, pauseDone, checked])
      .when(complete("pro"))
      .then([
        {
          type: "AutomationRunStepCompleted",
          data: { runId, key: "pro", outcome: "completed", output: null, branch: "default", startedAt: t2, completedAt: t2 },
        },
        { type: "AutomationRunEnded", data: { runId, status: "completed", skipped: ["free"], endedAt: t2 } },
      ]);
  });
  it("a failed step fails the run", () =>
    given(automationRunDecider, [...started, parked, pauseDone])
      .when({ type: "FailStep", key: "check", error: "Contact not found", now: t2 })
      .then([
        { type: "AutomationRunStepFailed", data: { runId, key: "check", error: "Contact not found", startedAt: t2, failedAt: t2 } },
        { type: "AutomationRunEnded", data: { runId, status: "failed", skipped: ["pro", "free"], endedAt: t2 } },
      ]));
  it("cancels a waiting run once; an ended run takes no more steps", () => {
    const cancelled: AutomationRunEvent = {
      type: "AutomationRunEnded",
      data: { runId, status: "cancelled", skipped: ["pause", "check", "pro", "free"], endedAt: t1 },
    };
    given(automationRunDecider, [...started, parked])
      .when({ type: "CancelRun", now: t1 })
      .then([cancelled]);
    given(automationRunDecider, [...started, parked, cancelled])
      .when(complete("pause"))
      .then([]);
    given(automationRunDecider, [...started, parked, cancelled])
      .when({ type: "CancelRun", now: t2 })
      .then([]);
  });
  it("a command on a run that never started is not found", () =>
    given(automationRunDecider).when(complete("pause")).thenError("not_found"));
});
