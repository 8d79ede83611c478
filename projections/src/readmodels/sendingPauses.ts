import type { PauseScope, ReputationEvent, ReputationMetric } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";

/**
 * Each team and sending domain ever paused (README, "Reputation guardrails"): whether it is paused now, on which
 * rate, and when it was last lifted. Sends look their team and domain up here; the reputation watcher counts
 * outcomes from `lifted_at` on; `tidings reputation list` and doctor show the paused ones.
 */
export const sendingPausesProjection = {
  name: "sending_pauses",
  version: 1,
  tables: {
    sending_pauses: {
      columns: {
        scope_id: { type: "uuid" },
        team_id: { type: "uuid" },
        scope: { type: "text", ...holds<PauseScope>() },
        domain_name: { type: "text", nullable: true },
        paused: { type: "boolean" },
        metric: { type: "text", ...holds<ReputationMetric>() },
        rate: { type: "numeric" },
        threshold: { type: "numeric" },
        sends: { type: "integer" },
        window_hours: { type: "integer" },
        paused_at: { type: "timestamptz" },
        // A pause keeps the time of the lift before it: outcomes before that still do not count.
        lifted_at: { type: "timestamptz", nullable: true, merge: "max" },
      },
      primaryKey: ["scope_id"],
      indexes: { by_team: "(team_id)" },
    },
  },
  handlers: handlersOf<ReputationEvent>({
    SendingPaused(data, context) {
      context.upsert("sending_pauses", {
        scope_id: data.scopeId,
        team_id: data.teamId,
        scope: data.scope,
        domain_name: data.domainName,
        paused: true,
        metric: data.metric,
        rate: data.rate,
        threshold: data.threshold,
        sends: data.sends,
        window_hours: data.windowHours,
        paused_at: data.pausedAt,
        lifted_at: null,
      });
    },
    SendingPauseLifted(data, context) {
      context.update("sending_pauses", { scope_id: data.scopeId }, { paused: false, lifted_at: data.liftedAt });
    },
  }),
} satisfies Projection;
