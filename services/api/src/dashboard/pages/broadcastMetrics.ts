import type { WireBroadcastStatus } from "@tidings/domain";
import { withQuery, type ApiAnswer } from "../apiCalls.js";
import type { SignedIn } from "../dashboard.js";
import { html, type Html } from "../html.js";

/**
 * The counts a broadcast's row shows, from `GET /emails/metrics` by broadcast: the broadcast list itself
 * has none. Opened and clicked count an email once, at its first open or click.
 */
export const listedMetrics = [
  { metric: "sent", label: "Sent" },
  { metric: "delivered", label: "Delivered" },
  { metric: "bounced", label: "Bounced" },
  { metric: "unique_opened", label: "Opened" },
  { metric: "unique_clicked", label: "Clicked" },
] as const;

type ListedMetric = (typeof listedMetrics)[number]["metric"];
export type BroadcastMetrics = ReadonlyMap<string, Partial<Record<ListedMetric, number>>>;

/** The listed counts of each broadcast, by id: one call for a page of them. */
export async function broadcastMetrics(
  who: SignedIn,
  broadcasts: readonly { id: string; created_at: string }[],
): Promise<ApiAnswer<BroadcastMetrics>> {
  if (broadcasts.length === 0) return { ok: true, status: 200, body: new Map() };
  // Metrics count events at their time, per quarter hour: from the UTC midnight before the oldest broadcast
  // was made, every event of these broadcasts is in the range.
  const since = broadcasts.map((b) => b.created_at.slice(0, 10)).sort()[0];
  const answer = await who.api.get<{ data: ({ broadcast_id: string } & Partial<Record<ListedMetric, number>>)[] }>(
    withQuery("/emails/metrics", {
      start_date: since,
      dimensions: "broadcast",
      broadcast_id: broadcasts.map((b) => b.id).join(","),
      metrics: listedMetrics.map((m) => m.metric).join(","),
    }),
  );
  if (!answer.ok) return answer;
  return { ...answer, body: new Map(answer.body.data.map((row) => [row.broadcast_id, row])) };
}

/** A count of a broadcast's, or a dash where there is none to show: a draft has sent nothing. */
export function countCell(
  broadcast: { id: string; status: WireBroadcastStatus },
  metrics: BroadcastMetrics | undefined,
  metric: ListedMetric,
): Html {
  if (broadcast.status === "draft" || !metrics) return html`<span class="muted">—</span>`;
  return html`${metrics.get(broadcast.id)?.[metric] ?? 0}`;
}
