import type { EmailEvent } from "@tidings/domain";
import type { Projection } from "./projection.js";

type Clicked = Extract<EmailEvent, { type: "EmailClicked" }>["data"];

/**
 * Clicks per email and tracked link: how often, how many of those by scanners, first and last. A
 * broadcast's clicked links are these rows joined with `emails.broadcast_id`.
 */
export const emailClicksProjection: Projection = {
  name: "email_clicks",
  version: 1,
  tables: {
    email_link_clicks: {
      columns: {
        email_id: { type: "uuid" },
        link_index: { type: "integer" },
        team_id: { type: "uuid" },
        link: { type: "text" },
        clicks: { type: "bigint", merge: "add" },
        machine_clicks: { type: "bigint", merge: "add" },
        first_clicked_at: { type: "timestamptz", merge: "min" },
        last_clicked_at: { type: "timestamptz", merge: "max" },
      },
      primaryKey: ["email_id", "link_index"],
      indexes: { by_team: "(team_id, last_clicked_at DESC)" },
    },
  },
  handlers: {
    EmailClicked(event, context) {
      const data = event.data as Clicked;
      const teamId = event.metadata.teamId;
      if (!teamId) return;
      context.upsert("email_link_clicks", {
        email_id: data.emailId,
        link_index: data.linkIndex,
        team_id: teamId,
        link: data.link,
        clicks: 1,
        machine_clicks: data.machine ? 1 : 0,
        first_clicked_at: data.clickedAt,
        last_clicked_at: data.clickedAt,
      });
    },
  },
};
