import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";
import { AutomationConnection, AutomationStep, connectionTypes } from "../automation/steps.js";

export const runStatuses = ["running", "completed", "failed", "cancelled"] as const;
export type RunStatus = (typeof runStatuses)[number];
export const runStepStatuses = ["pending", "running", "completed", "failed", "skipped", "waiting"] as const;
export type RunStepStatus = (typeof runStepStatuses)[number];

/** The custom event that started a run: what `{var: "payload.…"}` and conditions read. */
export const RunTrigger = z.object({
  receivedEventId: z.uuid(),
  name: z.string(),
  contactId: z.uuid(),
  payload: z.record(z.string(), z.unknown()),
});
export type RunTrigger = z.infer<typeof RunTrigger>;

/**
 * The graph is copied into the run: editing the automation afterwards leaves runs in progress on the
 * version they started with.
 */
export const AutomationRunStarted = eventSchema("AutomationRunStarted", {
  runId: z.uuid(),
  automationId: z.uuid(),
  teamId: z.uuid(),
  version: z.number().int().positive(),
  steps: z.array(AutomationStep),
  connections: z.array(AutomationConnection),
  trigger: RunTrigger,
  startedAt: z.string(),
});

/** `branch` is the connection type the run leaves the step by; `skipped` marks a step passed over (a send to an unsubscribed contact). */
export const AutomationRunStepCompleted = eventSchema("AutomationRunStepCompleted", {
  runId: z.uuid(),
  key: z.string(),
  outcome: z.enum(["completed", "skipped"]),
  output: z.record(z.string(), z.unknown()).nullable(),
  branch: z.enum(connectionTypes),
  startedAt: z.string(),
  completedAt: z.string(),
});

/** The run is parked on a `delay` or `wait_for_event` step; `until` is when its timer fires (null: no timeout). */
export const AutomationRunStepWaiting = eventSchema("AutomationRunStepWaiting", {
  runId: z.uuid(),
  key: z.string(),
  eventName: z.string().nullable(),
  until: z.string().nullable(),
  since: z.string(),
});

export const AutomationRunStepFailed = eventSchema("AutomationRunStepFailed", {
  runId: z.uuid(),
  key: z.string(),
  error: z.string(),
  startedAt: z.string(),
  failedAt: z.string(),
});

/** The run ended; `skipped` lists the steps of its graph it never reached. */
export const AutomationRunEnded = eventSchema("AutomationRunEnded", {
  runId: z.uuid(),
  status: z.enum(["completed", "failed", "cancelled"]),
  skipped: z.array(z.string()),
  endedAt: z.string(),
});

export const AutomationRunEvent = eventUnion([
  AutomationRunStarted,
  AutomationRunStepCompleted,
  AutomationRunStepWaiting,
  AutomationRunStepFailed,
  AutomationRunEnded,
]);
export type AutomationRunEvent = z.infer<typeof AutomationRunEvent>;
