import { z } from "zod";
import { withQuery } from "../apiCalls.js";
import { field, type Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { csrfField, errorNotice, shownOnce, successNotice, timestamp } from "../layout.js";
import { badge } from "../badges.js";
import { facts } from "../facts.js";
import { confirmedButton, pagedTable } from "../lists.js";
import { cursorQuery, listPageSize } from "../pagination.js";
import { unavailablePage } from "../unavailable.js";
import { webhookPath, webhooksPath, webhookStatusBadge, type WebhookItem } from "./webhooks.js";

/** An item of `GET /webhooks/:id/events`: one event delivered to the endpoint, with every attempt it took. */
export interface DeliveryItem {
  id: string;
  type: string;
  created_at: string;
  status: "pending" | "attempting" | "success" | "failed";
}

export const deliveryPath = (webhookId: string, deliveryId: string) => `${webhookPath(webhookId)}/deliveries/${deliveryId}`;

export const deliveryStatusBadge = (status: DeliveryItem["status"]) =>
  badge(status, status === "success" ? "ok" : status === "failed" ? "bad" : "wait");

const params = z.object({ id: z.guid() });

/**
 * One endpoint: its settings, enable or disable, rotate its secret (the new one shown once), delete, and
 * its deliveries, newest first, a page at a time. The page never shows the secret `GET /webhooks/:id`
 * returns: a page left open on a screen should not give it away.
 */
export function webhookDetailPages(dashboard: Dashboard): void {
  dashboard.page("/webhooks/:id", { params, querystring: z.object(cursorQuery) }, async (who, { params: { id }, query }) => {
    const [webhook, deliveries] = await Promise.all([
      who.api.get<WebhookItem>(`/webhooks/${id}`),
      who.api.get<{ has_more: boolean; data: DeliveryItem[] }>(
        withQuery(`/webhooks/${id}/events`, { limit: listPageSize, after: query.after, before: query.before }),
      ),
    ]);
    if (!webhook.ok)
      return unavailablePage(who, webhook, { noun: "webhook", active: "webhooks", back: { href: webhooksPath, label: "All webhooks" } });
    const w = webhook.body;
    const csrfToken = who.session.csrfToken;
    const action = (name: string) => `${webhookPath(id)}/${name}`;
    const toggle = w.status === "enabled" ? { status: "disabled", label: "Disable" } : { status: "enabled", label: "Enable" };
    const row = (d: DeliveryItem) => [
      html`<a href="${deliveryPath(id, d.id)}"><span class="mono">${d.type}</span></a>`,
      deliveryStatusBadge(d.status),
      timestamp(d.created_at),
    ];
    return who.page(
      w.endpoint,
      "webhooks",
      html`<p><a href="${webhooksPath}">← All webhooks</a></p>
        <h1>${w.endpoint}</h1>
        <section class="panel" aria-label="Settings">
          ${facts([
            ["Status", webhookStatusBadge(w.status)],
            ["Events", html`<span class="mono">${(w.events ?? []).join(", ")}</span>`],
            ["Created", timestamp(w.created_at)],
            ["Id", html`<code>${w.id}</code>`],
          ])}
        </section>
        <section class="panel" aria-labelledby="webhook-actions">
          <h2 id="webhook-actions">Change</h2>
          <div class="actions">
            <form method="post" action="${action("status")}">
              ${csrfField(csrfToken)}<input type="hidden" name="status" value="${toggle.status}" />
              <button class="secondary small" type="submit">${toggle.label}</button>
            </form>
            <form
              method="post"
              action="${action("rotate")}"
              data-confirm="Rotate the signing secret? The old one keeps signing beside the new one for 24 hours."
            >
              ${csrfField(csrfToken)}<button class="secondary small" type="submit">Rotate signing secret</button>
            </form>
            ${confirmedButton({
              action: action("delete"),
              csrfToken,
              label: "Delete",
              name: w.endpoint,
              question: `Delete the endpoint ${w.endpoint}? Tidings stops sending to it at once.`,
            })}
          </div>
        </section>
        <h2>Deliveries</h2>
        ${pagedTable(deliveries, {
          what: "The deliveries",
          empty: "No deliveries yet: each event of the types above shows here once Tidings sends it.",
          caption: "Deliveries, newest first",
          columns: ["Event", "Status", "Created"],
          row,
          path: webhookPath(id),
          cursor: query,
        })}`,
    );
  });

  dashboard.action("/webhooks/:id/status", { params }, async (who, { params: { id }, form }) => {
    const status = field(form, "status");
    const answer = await who.api.send("PATCH", `/webhooks/${id}`, { status });
    who.flash(
      answer.ok
        ? successNotice(status === "enabled" ? "The endpoint is enabled." : "The endpoint is disabled: Tidings sends it nothing.")
        : errorNotice("The endpoint was not changed.", answer.message),
    );
    return { redirect: webhookPath(id) };
  });

  dashboard.action("/webhooks/:id/rotate", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send<{ signing_secret: string }>("POST", `/webhooks/${id}/signing-secret/rotate`);
    who.flash(
      answer.ok
        ? successNotice(
            html`The signing secret is rotated; the old one keeps signing for 24 hours. Copy the new one now: it is shown only this once.
            ${shownOnce("signing-secret", answer.body.signing_secret, "Copy secret")}`,
          )
        : errorNotice("The signing secret was not rotated.", answer.message),
    );
    return { redirect: webhookPath(id) };
  });

  dashboard.action("/webhooks/:id/delete", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send("DELETE", `/webhooks/${id}`);
    if (!answer.ok) {
      who.flash(errorNotice("The endpoint was not deleted.", answer.message));
      return { redirect: webhookPath(id) };
    }
    who.flash(successNotice("The endpoint is deleted."));
    return { redirect: webhooksPath };
  });
}
