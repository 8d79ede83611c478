import type { AutomationRunEvent, RunStatus, RunStepStatus } from "@tidings/domain";
import { holds, type BatchContext, type Projection, type Row } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { newestFirstPerTeam } from "./teamResourceTable.js";

const moveStep = (context: BatchContext, step: { runId: string; key: string }, changes: Row) =>
  context.update("automation_run_steps", { run_id: step.runId, key: step.key }, changes);

/**
 * Runs and their steps (docs/wire-compatibility.md §6.14). Every step of the run's graph gets a row at the start, `pending`,
 * in graph order; each step event moves its row, and the run's end marks the steps it never reached
 * `skipped`. A handler cannot read, so the end event carries those keys.
 */
export const automationRunsProjection = {
  name: "automation_runs",
  // 2: `by_team`, for an erasure's scan of the team's runs (a deleted automation's stay).
  version: 2,
  tables: {
    automation_runs: {
      columns: {
        id: { type: "uuid" },
        automation_id: { type: "uuid" },
        team_id: { type: "uuid" },
        version: { type: "integer" },
        status: { type: "text", ...holds<RunStatus>() },
        contact_id: { type: "uuid" },
        started_at: { type: "timestamptz" },
        completed_at: { type: "timestamptz", nullable: true },
        created_at: { type: "timestamptz" },
      },
      primaryKey: ["id"],
      indexes: { by_automation: "(automation_id, created_at DESC, id DESC)", by_team: newestFirstPerTeam },
    },
    automation_run_steps: {
      columns: {
        run_id: { type: "uuid" },
        key: { type: "text" },
        position: { type: "integer" },
        type: { type: "text" },
        status: { type: "text", ...holds<RunStepStatus>() },
        output: { type: "jsonb", nullable: true, ...holds<Record<string, unknown>>() },
        error: { type: "text", nullable: true },
        started_at: { type: "timestamptz", nullable: true },
        completed_at: { type: "timestamptz", nullable: true },
        created_at: { type: "timestamptz" },
      },
      primaryKey: ["run_id", "key"],
    },
  },
  handlers: handlersOf<AutomationRunEvent>({
    AutomationRunStarted(data, context) {
      context.upsert("automation_runs", {
        id: data.runId,
        automation_id: data.automationId,
        team_id: data.teamId,
        version: data.version,
        status: "running",
        contact_id: data.trigger.contactId,
        started_at: data.startedAt,
        completed_at: null,
        created_at: data.startedAt,
      });
      data.steps.forEach((step, position) =>
        context.upsert("automation_run_steps", {
          run_id: data.runId,
          key: step.key,
          position,
          type: step.type,
          status: "pending",
          output: null,
          error: null,
          started_at: null,
          completed_at: null,
          created_at: data.startedAt,
        }),
      );
    },
    AutomationRunStepWaiting(data, context) {
      moveStep(context, data, { status: "waiting", started_at: data.since, output: { waiting_for: data.eventName, until: data.until } });
    },
    AutomationRunStepCompleted(data, context) {
      moveStep(context, data, { status: data.outcome, output: data.output, started_at: data.startedAt, completed_at: data.completedAt });
    },
    AutomationRunStepFailed(data, context) {
      moveStep(context, data, { status: "failed", error: data.error, started_at: data.startedAt, completed_at: data.failedAt });
    },
    AutomationRunEnded(data, context) {
      context.update("automation_runs", { id: data.runId }, { status: data.status, completed_at: data.endedAt });
      for (const key of data.skipped) moveStep(context, { runId: data.runId, key }, { status: "skipped" });
    },
  }),
} satisfies Projection;
