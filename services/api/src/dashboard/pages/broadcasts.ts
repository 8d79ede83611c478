import { z } from "zod";
import type { WireBroadcastStatus } from "@tidings/domain";
import type { BroadcastListItem } from "../../queries/broadcasts.js";
import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { errorNotice, timestamp } from "../layout.js";
import { dataTable, listState } from "../lists.js";
import { cursorQuery, listPageSize, pager } from "../pagination.js";
import { dashboardPath } from "../sessionCookie.js";
import { broadcastMetrics, countCell, listedMetrics, type BroadcastMetrics } from "./broadcastMetrics.js";

/** An item of `GET /broadcasts`, as the API writes it. */
export type BroadcastItem = BroadcastListItem;

export const broadcastsPath = `${dashboardPath}/broadcasts`;
export const broadcastPath = (id: string) => `${broadcastsPath}/${id}`;

const tone: Record<WireBroadcastStatus, string> = {
  draft: "",
  scheduled: " wait",
  queued: " wait",
  sending: " wait",
  sent: " ok",
  canceled: " bad",
  failed: " bad",
};

/** A broadcast's status as a badge whose colour agrees with its words (the words alone carry the meaning). */
export const broadcastBadge = (status: WireBroadcastStatus) => html`<span class="badge${tone[status]}">${status}</span>`;

export const broadcastName = (b: { name: string | null }) => b.name || "(unnamed)";

function broadcastTable(broadcasts: readonly BroadcastItem[], metrics: BroadcastMetrics | undefined): Html {
  const rows = broadcasts.map((b) => [
    html`<a href="${broadcastPath(b.id)}">${broadcastName(b)}</a>`,
    broadcastBadge(b.status),
    ...listedMetrics.map(({ metric }) => countCell(b, metrics, metric)),
    timestamp(b.sent_at ?? b.scheduled_at ?? b.created_at),
  ]);
  const columns = ["Name", "Status", ...listedMetrics.map(({ label }) => label), "Sent, scheduled or created"];
  return dataTable("Broadcasts, newest first", columns, rows);
}

/** The Broadcasts page: the team's broadcasts newest first, a page at a time, each with its status and counts. */
export function broadcastListPage(dashboard: Dashboard): void {
  dashboard.page("/broadcasts", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const title = "Broadcasts";
    const answer = await who.api.get<{ has_more: boolean; data: BroadcastItem[] }>(
      withQuery("/broadcasts", { limit: listPageSize, after: query.after, before: query.before }),
    );
    const metrics = answer.ok ? await broadcastMetrics(who, answer.body.data) : undefined;
    return who.page(
      title,
      "broadcasts",
      html`<h1>${title}</h1>
        <p><a class="button" href="${broadcastsPath}/new">New broadcast</a></p>
        ${metrics && !metrics.ok && errorNotice("The broadcasts' counts could not be loaded.", metrics.message)}
        ${listState(
          answer,
          "The broadcasts",
          "No broadcasts yet. Write one with “New broadcast”, or create one with POST /broadcasts.",
          (broadcasts) =>
            html`${broadcastTable(broadcasts, metrics?.ok ? metrics.body : undefined)}
            ${answer.ok && pager(broadcastsPath, query, answer.body)}`,
        )}`,
    );
  });
}
