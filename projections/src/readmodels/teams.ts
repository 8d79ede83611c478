import { DEFAULT_RATE_LIMIT, type TeamEvent } from "@tidings/domain";
import type { Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";

/** Teams as the api reads them: the rate limiter takes `rate_limit_per_second` from here. */
export const teamsProjection = {
  name: "teams",
  // 2: `broadcast_emails_per_second`.
  version: 2,
  tables: {
    teams: {
      columns: {
        id: { type: "uuid" },
        name: { type: "text" },
        rate_limit_per_second: { type: "integer" },
        /** Null: the install's BROADCAST_EMAILS_PER_SECOND. The broadcast fan-out reads it. */
        broadcast_emails_per_second: { type: "integer", nullable: true },
        created_at: { type: "timestamptz" },
      },
      primaryKey: ["id"],
    },
  },
  handlers: handlersOf<TeamEvent>({
    TeamCreated({ teamId, name, createdAt }, context) {
      context.upsert("teams", {
        id: teamId,
        name,
        rate_limit_per_second: DEFAULT_RATE_LIMIT,
        broadcast_emails_per_second: null,
        created_at: createdAt,
      });
    },
    TeamRateLimitSet({ teamId, requestsPerSecond }, context) {
      context.update("teams", { id: teamId }, { rate_limit_per_second: requestsPerSecond });
    },
    TeamBroadcastRateSet({ teamId, emailsPerSecond }, context) {
      context.update("teams", { id: teamId }, { broadcast_emails_per_second: emailsPerSecond });
    },
  }),
} satisfies Projection;
