import { z } from "zod";
import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { csrfField, errorNotice, successNotice, timestamp } from "../layout.js";
import { badge } from "../badges.js";
import { facts } from "../facts.js";
import { pagedTable } from "../lists.js";
import { cursorQuery, listPageSize } from "../pagination.js";
import { unavailablePage } from "../unavailable.js";
import { deliveryPath, deliveryStatusBadge, type DeliveryItem } from "./webhookDetail.js";
import { webhookPath } from "./webhooks.js";

interface Delivery extends DeliveryItem {
  next_attempt_at: string | null;
  payload: unknown;
}

interface Attempt {
  id: string;
  http_status_code: number | null;
  response: string;
  duration_ms: number;
  sent_at: string;
}

const params = z.object({ id: z.guid(), eventId: z.guid() });

const httpStatus = (code: number | null) =>
  code === null ? badge("no answer", "bad") : badge(String(code), code >= 200 && code < 300 ? "ok" : "bad");

const attemptRow = (a: Attempt) => [
  timestamp(a.sent_at),
  httpStatus(a.http_status_code),
  a.response ? html`<span class="mono">${a.response}</span>` : html`<span class="muted">(empty)</span>`,
  html`${a.duration_ms.toLocaleString("en")} ms`,
];

/**
 * One delivery: the event, the body sent, every attempt with the endpoint's HTTP status and answer (newest
 * first, a page at a time), and Replay, which sends the same event, under the same svix-id, once more.
 */
export function webhookDeliveryPages(dashboard: Dashboard): void {
  dashboard.page(
    "/webhooks/:id/deliveries/:eventId",
    { params, querystring: z.object(cursorQuery) },
    async (who, { params: { id, eventId }, query }) => {
      const base = `/webhooks/${id}/events/${eventId}`;
      const [delivery, attempts] = await Promise.all([
        who.api.get<Delivery>(base),
        who.api.get<{ has_more: boolean; data: Attempt[] }>(
          withQuery(`${base}/attempts`, { limit: listPageSize, after: query.after, before: query.before }),
        ),
      ]);
      const back = { href: webhookPath(id), label: "The endpoint's deliveries" };
      if (!delivery.ok) return unavailablePage(who, delivery, { noun: "delivery", active: "webhooks", back });
      const d = delivery.body;
      return who.page(
        d.type,
        "webhooks",
        html`<p><a href="${back.href}">← ${back.label}</a></p>
          <h1>${d.type} ${deliveryStatusBadge(d.status)}</h1>
          <section class="panel" aria-label="Summary">
            ${facts([
              ["Status", deliveryStatusBadge(d.status)],
              ["Created", timestamp(d.created_at)],
              ["Next attempt", d.next_attempt_at && timestamp(d.next_attempt_at)],
              ["svix-id", html`<code>msg_${d.id}</code>`],
            ])}
          </section>
          <form method="post" action="${deliveryPath(id, eventId)}/replay" class="panel">
            ${csrfField(who.session.csrfToken)}
            <p>Replay sends this event to the endpoint again, with the same svix-id, as a new round of attempts.</p>
            <button type="submit">Replay</button>
          </form>
          <h2>Attempts</h2>
          ${pagedTable(attempts, {
            what: "The attempts",
            empty: "No attempts yet: the first is on its way.",
            caption: "Attempts, newest first",
            columns: ["Sent", "HTTP status", "Response", "Took"],
            row: attemptRow,
            path: deliveryPath(id, eventId),
            cursor: query,
          })}
          <h2>Payload</h2>
          <pre class="code">${JSON.stringify(d.payload, null, 2)}</pre>`,
      );
    },
  );

  dashboard.action("/webhooks/:id/deliveries/:eventId/replay", { params }, async (who, { params: { id, eventId } }) => {
    const answer = await who.api.send("POST", `/webhooks/${id}/events/${eventId}/replay`);
    who.flash(
      answer.ok
        ? successNotice("Replay started: its attempts show here as Tidings makes them. Reload to see them.")
        : errorNotice("The delivery was not replayed.", answer.message),
    );
    return { redirect: deliveryPath(id, eventId) };
  });
}
