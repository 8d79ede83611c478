import type { EmailEvent } from "@tidings/domain";
import type { Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { tallyColumns, tallyOnce } from "./tally.js";

/**
 * Clicks per email and tracked link, and opens per email: how often, how many of those by scanners and
 * proxies, first and last. A broadcast's clicked links and its opened or clicked recipients are these rows
 * joined with its recipients' ledger, whose ids are the emails' ids.
 */
export const emailClicksProjection = {
  name: "email_clicks",
  version: 2,
  tables: {
    email_link_clicks: {
      columns: {
        email_id: { type: "uuid" },
        link_index: { type: "integer" },
        team_id: { type: "uuid" },
        link: { type: "text" },
        ...tallyColumns("clicks", "clicked"),
      },
      primaryKey: ["email_id", "link_index"],
      indexes: { by_team: "(team_id, last_clicked_at DESC)" },
    },
    email_opens: {
      columns: {
        email_id: { type: "uuid" },
        team_id: { type: "uuid" },
        ...tallyColumns("opens", "opened"),
      },
      primaryKey: ["email_id"],
    },
  },
  handlers: handlersOf<EmailEvent>({
    EmailOpened(data, context, event) {
      const teamId = event.metadata.teamId;
      if (!teamId) return;
      context.upsert("email_opens", {
        email_id: data.emailId,
        team_id: teamId,
        ...tallyOnce("opens", "opened", data.machine, data.openedAt),
      });
    },
    EmailClicked(data, context, event) {
      const teamId = event.metadata.teamId;
      if (!teamId) return;
      context.upsert("email_link_clicks", {
        email_id: data.emailId,
        link_index: data.linkIndex,
        team_id: teamId,
        link: data.link,
        ...tallyOnce("clicks", "clicked", data.machine, data.clickedAt),
      });
    },
  }),
} satisfies Projection;
