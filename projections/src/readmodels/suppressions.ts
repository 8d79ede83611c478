import { deterministicId } from "@tidings/core";
import { bareAddresses, type EmailEvent, type SuppressionEvent, type SuppressionOrigin } from "@tidings/domain";
import { holds, type BatchContext, type Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { newestFirstPerTeam } from "./teamResourceTable.js";

/**
 * A suppression's id, the same for an address of a team whichever way it got on the list: the id of its
 * stream (`suppression-<id>`) and of its row.
 */
export const suppressionIdOf = (teamId: string, email: string) => deterministicId("suppression", teamId, email.toLowerCase());

/** Puts an email's recipients on its team's list; an address already there keeps its first origin. */
function suppress(
  context: BatchContext,
  email: { teamId: string; emailId: string; recipients: string[] },
  origin: SuppressionOrigin,
  at: string,
) {
  for (const address of bareAddresses(email.recipients))
    context.upsert("suppressions", {
      team_id: email.teamId,
      email: address,
      id: suppressionIdOf(email.teamId, address),
      origin,
      source_id: email.emailId,
      created_at: at,
    });
}

/**
 * The addresses a team no longer sends to. A hard (permanent) bounce puts its recipients here straight
 * from the delivery saga's `EmailBounced`, and a complaint the recipients it blames from `EmailComplained`
 * (sending again to someone who called it spam hurts every other email of the domain); manual additions and every removal come through the
 * suppression's own stream. Sends look addresses up here before they queue (a lookup, like an alias:
 * docs/architecture.md §1), lower-cased. The first cause stays the recorded origin and source until a removal.
 */
export const suppressionsProjection = {
  name: "suppressions",
  version: 2,
  tables: {
    suppressions: {
      columns: {
        team_id: { type: "uuid" },
        email: { type: "text" },
        id: { type: "uuid", merge: "keep" },
        origin: { type: "text", merge: "keep", ...holds<SuppressionOrigin>() },
        source_id: { type: "uuid", nullable: true, merge: "keep" },
        created_at: { type: "timestamptz", merge: "keep" },
      },
      primaryKey: ["team_id", "email"],
      indexes: { by_team: newestFirstPerTeam, by_id: "(id)" },
    },
  },
  handlers: handlersOf<EmailEvent | SuppressionEvent>({
    EmailBounced(data, context) {
      if (data.bounce.type === "permanent") suppress(context, data, "bounce", data.bouncedAt);
    },
    EmailComplained(data, context) {
      suppress(context, data, "complaint", data.complainedAt);
    },
    SuppressionAdded(data, context) {
      context.upsert("suppressions", {
        team_id: data.teamId,
        email: data.email,
        id: data.suppressionId,
        origin: data.origin,
        source_id: data.sourceId,
        created_at: data.createdAt,
      });
    },
    SuppressionRemoved(data, context) {
      context.delete("suppressions", { team_id: data.teamId, email: data.email });
    },
  }),
} satisfies Projection;
