import { z } from "zod";
import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { timestamp } from "../layout.js";
import { anySet, filterForm, selectOption, setFilters } from "../filterForm.js";
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

/** The filters of the Logs page as its form sends them; the API checks them and says what is wrong. */
const filterQuery = { method: z.string().optional(), path: z.string().optional(), status: z.string().optional() };
type Filters = z.infer<z.ZodObject<typeof filterQuery>>;

const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const statusClasses = [
  { value: "2", label: "2xx" },
  { value: "4", label: "4xx" },
  { value: "5", label: "5xx" },
];

function filters(current: Filters) {
  return filterForm(
    `${dashboardPath}/logs`,
    "Filter the requests",
    html`<div class="field">
        <label for="filter_method">Method</label>
        <select id="filter_method" name="method">
          ${selectOption("", "Any", current.method)} ${methods.map((method) => selectOption(method, method, current.method))}
        </select>
      </div>
      <div class="field">
        <label for="filter_path">Path starts with</label>
        <input id="filter_path" name="path" type="search" placeholder="/emails" value="${current.path ?? ""}" />
      </div>
      <div class="field">
        <label for="filter_status">Status</label>
        <select id="filter_status" name="status">
          ${selectOption("", "Any", current.status)}
          ${statusClasses.map((status) => selectOption(status.value, status.label, current.status))}
        </select>
      </div>`,
  );
}

/** The team's API requests, newest first, from `GET /logs` and its filters; the dashboard's own calls are among them. */
export function logPages(dashboard: Dashboard): void {
  dashboard.page("/logs", { querystring: z.object({ ...cursorQuery, ...filterQuery }) }, async (who, { query }) => {
    const title = "Logs";
    const set = setFilters({ method: query.method, path: query.path, status: query.status });
    const answer = await who.api.get<{ has_more: boolean; data: LogItem[] }>(
      withQuery("/logs", { limit: listPageSize, after: query.after, before: query.before, ...set }),
    );
    return who.page(
      title,
      "logs",
      html`<h1>${title}</h1>
        ${filters(query)}
        ${pagedTable(answer, {
          what: "The request logs",
          empty: anySet(set) ? "No request matches these filters." : "No API requests are logged yet.",
          caption: "API requests, newest first",
          columns: ["Method", "Path", "Status", "Client", "When"],
          row,
          path: `${dashboardPath}/logs`,
          cursor: query,
          keep: set,
        })}`,
    );
  });
}
