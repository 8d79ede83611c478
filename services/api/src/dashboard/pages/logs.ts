import { z } from "zod";
import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { timestamp } from "../layout.js";
import { pagedTable } from "../lists.js";
import { cursorQuery, listPageSize } from "../pagination.js";
import { dashboardPath } from "../sessionCookie.js";

interface LogItem {
  id: string;
  created_at: string;
  endpoint: string;
  method: string;
  response_status: number;
  user_agent: string | null;
}

const row = (log: LogItem) => [
  html`<span class="mono">${log.method}</span>`,
  html`<span class="mono">${log.endpoint}</span>`,
  html`<span class="badge${log.response_status < 400 ? " ok" : " bad"}">${log.response_status}</span>`,
  log.user_agent ?? "",
  timestamp(log.created_at),
];

/** The team's API requests, newest first, from `GET /logs`; the dashboard's own calls are among them. */
export function logPages(dashboard: Dashboard): void {
  dashboard.page("/logs", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const title = "Logs";
    const answer = await who.api.get<{ has_more: boolean; data: LogItem[] }>(
      withQuery("/logs", { limit: listPageSize, after: query.after, before: query.before }),
    );
    return who.page(
      title,
      "logs",
      html`<h1>${title}</h1>
        ${pagedTable(answer, {
          what: "The request logs",
          empty: "No API requests are logged yet.",
          caption: "API requests, newest first",
          columns: ["Method", "Path", "Status", "Client", "When"],
          row,
          path: `${dashboardPath}/logs`,
          cursor: query,
        })}`,
    );
  });
}
