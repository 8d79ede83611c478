import { z } from "zod";
import type { ApiAnswer } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { facts } from "../facts.js";
import { html } from "../html.js";
import { errorNotice, timestamp } from "../layout.js";
import { cursorQuery } from "../pagination.js";
import { broadcastActionForms } from "./broadcastActions.js";
import { broadcastLedger, linkCursorNames } from "./broadcastLedger.js";
import { broadcastMetrics } from "./broadcastMetrics.js";
import { broadcastProblem, type BroadcastObject } from "./broadcastObject.js";
import { previewQuery, previewSection } from "./broadcastPreview.js";
import { broadcastBadge, broadcastName, broadcastPath, broadcastsPath } from "./broadcasts.js";

const params = z.object({ id: z.guid() });
const detailQuery = previewQuery.extend({
  ...cursorQuery,
  [linkCursorNames.after]: cursorQuery.after,
  [linkCursorNames.before]: cursorQuery.before,
});

/** A named thing's name from the API, or its id when the API could not say. */
async function nameOf(get: Promise<ApiAnswer<{ name: string }>>, id: string) {
  const answer = await get;
  return answer.ok ? answer.body.name : id;
}

/**
 * One broadcast: its settings, its counts (the ledger's from `GET /broadcasts/:id`, opens and clicks from
 * the email metrics), the buttons its state allows, a preview for a contact, its recipients and its
 * clicked links, each list paged on its own.
 */
export function broadcastDetailPage(dashboard: Dashboard): void {
  dashboard.page("/broadcasts/:id", { params, querystring: detailQuery }, async (who, { params: { id }, query }) => {
    const answer = await who.api.get<BroadcastObject>(`/broadcasts/${id}`);
    if (!answer.ok) return broadcastProblem(who, answer);
    const b = answer.body;
    const [segment, topic, metrics, ledger, preview] = await Promise.all([
      b.segment_id ? nameOf(who.api.get<{ name: string }>(`/segments/${b.segment_id}`), b.segment_id) : undefined,
      b.topic_id ? nameOf(who.api.get<{ name: string }>(`/topics/${b.topic_id}`), b.topic_id) : undefined,
      broadcastMetrics(who, [b]),
      b.status === "draft" ? undefined : broadcastLedger(who, b.id, query),
      previewSection(who, b, broadcastPath(id), query.contact),
    ]);
    const engagement = (metric: "unique_opened" | "unique_clicked") => metrics.ok && String(metrics.body.get(b.id)?.[metric] ?? 0);
    const title = broadcastName(b);
    const counts =
      b.status !== "draft" &&
      html`<section class="panel" aria-labelledby="counts-heading">
        <h2 id="counts-heading">Counts</h2>
        ${facts([
          ["Recipients", String(b.counts.recipients)],
          ["Sent", String(b.counts.sent)],
          ["Delivered", String(b.counts.delivered)],
          ["Bounced", String(b.counts.bounced)],
          ["Failed", String(b.counts.failed)],
          ["Suppressed", String(b.counts.suppressed)],
          ["Complained", String(b.counts.complained)],
          ["Canceled", String(b.counts.canceled)],
          ["Opened", engagement("unique_opened")],
          ["Clicked", engagement("unique_clicked")],
        ])}
        ${
          metrics.ok
            ? html`<p class="muted">Opened and clicked count each email once, at its first open or click.</p>`
            : errorNotice("The opens and clicks could not be loaded.", metrics.message)
        }
      </section>`;
    return who.page(
      title,
      "broadcasts",
      html`<p><a href="${broadcastsPath}">← All broadcasts</a></p>
        <h1>${title} ${broadcastBadge(b.status)}</h1>
        <section class="panel" aria-labelledby="settings-heading">
          <h2 id="settings-heading">Settings</h2>
          ${facts([
            ["From", b.from],
            ["Subject", b.subject],
            ["Reply to", b.reply_to?.join(", ")],
            ["Segment", segment],
            ["Topic", topic],
            ["Preview text", b.preview_text],
            ["Created", timestamp(b.created_at)],
            ["Scheduled for", b.scheduled_at && timestamp(b.scheduled_at)],
            ["Sent", b.sent_at && timestamp(b.sent_at)],
            ["Id", html`<code>${b.id}</code>`],
          ])}
        </section>
        ${broadcastActionForms(b, who.session.csrfToken)} ${counts} ${preview} ${ledger}`,
    );
  });
}
