import { DEFAULT_RATE_LIMIT, type TeamEvent } from "@tidings/domain";
import type { Projection } from "../engine/projection.js";
import { eventDataOf } from "../engine/eventData.js";

const dataOf = eventDataOf<TeamEvent>();

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
  handlers: {
    TeamCreated(event, context) {
      const { teamId, name, createdAt } = dataOf<"TeamCreated">(event);
      context.upsert("teams", { id: teamId, name, rate_limit_per_second: DEFAULT_RATE_LIMIT, broadcast_emails_per_second: null, created_at: createdAt });
    },
    TeamRateLimitSet(event, context) {
      const { teamId, requestsPerSecond } = dataOf<"TeamRateLimitSet">(event);
      context.update("teams", { id: teamId }, { rate_limit_per_second: requestsPerSecond });
    },
    TeamBroadcastRateSet(event, context) {
      const { teamId, emailsPerSecond } = dataOf<"TeamBroadcastRateSet">(event);
      context.update("teams", { id: teamId }, { broadcast_emails_per_second: emailsPerSecond });
    },
  },
} satisfies Projection;
