import { z } from "zod";
import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { timestamp } from "../layout.js";
import { badge } from "../badges.js";
import { pagedTable } from "../lists.js";
import { cursorQuery, listPageSize } from "../pagination.js";
import { dashboardPath } from "../sessionCookie.js";

/** An item of `GET /webhooks`. */
export interface WebhookItem {
  id: string;
  endpoint: string;
  created_at: string;
  status: "enabled" | "disabled";
  events: string[] | null;
}

export const webhooksPath = `${dashboardPath}/webhooks`;
export const webhookPath = (id: string) => `${webhooksPath}/${id}`;

export const webhookStatusBadge = (status: WebhookItem["status"]) => badge(status, status === "enabled" ? "ok" : "wait");

const row = (w: WebhookItem) => [
  html`<a href="${webhookPath(w.id)}">${w.endpoint}</a>`,
  html`<span class="mono">${(w.events ?? []).join(", ")}</span>`,
  webhookStatusBadge(w.status),
  timestamp(w.created_at),
];

/** The team's webhook endpoints, newest first, each linking to its page, a page at a time. */
export function webhookListPage(dashboard: Dashboard): void {
  dashboard.page("/webhooks", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const title = "Webhooks";
    const answer = await who.api.get<{ has_more: boolean; data: WebhookItem[] }>(
      withQuery("/webhooks", { limit: listPageSize, after: query.after, before: query.before }),
    );
    return who.page(
      title,
      "webhooks",
      html`<h1>${title}</h1>
        <p class="muted">Tidings POSTs the events each endpoint subscribes to, signed with the endpoint's secret.</p>
        <p><a class="button" href="${webhooksPath}/new">Add an endpoint</a></p>
        ${pagedTable(answer, {
          what: "The webhook endpoints",
          empty: "No webhook endpoints yet. Add one to have Tidings tell your application when an email is sent, delivered or bounced.",
          caption: "Webhook endpoints, newest first",
          columns: ["Endpoint", "Events", "Status", "Created"],
          row,
          path: webhooksPath,
          cursor: query,
        })}`,
    );
  });
}
