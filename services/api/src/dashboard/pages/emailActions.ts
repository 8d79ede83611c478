import { z } from "zod";
import { field, type Dashboard } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { csrfField, errorNotice, shownOnce, successNotice, timestamp } from "../layout.js";
import { utcFromDatetimeLocal } from "../utcTime.js";
import { emailPath } from "./emails.js";

const params = z.object({ id: z.guid() });

/** The durations a share link may last (the API's limit is 48 hours). */
const shareDurations = [
  ["1 hour", "1 hour"],
  ["24 hours", "1 day"],
  ["48 hours", "48 hours"],
] as const;

/** An email's buttons: share it (and revoke its links), and, while it waits for its time, cancel or reschedule it. */
export function emailActionForms(id: string, status: string, csrfToken: string): Html {
  const action = (name: string) => `${emailPath(id)}/${name}`;
  const scheduled =
    status === "scheduled" &&
    html`<form method="post" action="${action("reschedule")}" class="fields">
        ${csrfField(csrfToken)}
        <div class="field">
          <label for="scheduled_at">New send time (UTC)</label
          ><input id="scheduled_at" name="scheduled_at" type="datetime-local" required />
        </div>
        <div class="field"><button type="submit">Reschedule</button></div>
      </form>
      <form method="post" action="${action("cancel")}" data-confirm="Cancel this email? It will not be sent.">
        ${csrfField(csrfToken)}<button class="danger" type="submit">Cancel sending</button>
      </form>`;
  return html`<section class="panel" aria-labelledby="actions-heading">
    <h2 id="actions-heading">Share${status === "scheduled" && " or change"}</h2>
    <form method="post" action="${action("share")}" class="fields">
      ${csrfField(csrfToken)}
      <div class="field">
        <label for="expires_in">Link lasts</label>
        <select id="expires_in" name="expires_in">
          ${shareDurations.map(([label, value]) => html`<option value="${value}">${label}</option>`)}
        </select>
      </div>
      <div class="field"><button type="submit">Create a share link</button></div>
    </form>
    <form method="post" action="${action("unshare")}">
      ${csrfField(csrfToken)}<button class="secondary small" type="submit">Revoke every share link</button>
    </form>
    ${scheduled}
  </section>`;
}

/** The forms of `emailActionForms`, each one API call; the outcome shows on the email's page. */
export function emailActions(dashboard: Dashboard): void {
  dashboard.action("/emails/:id/share", { params }, async (who, { params: { id }, form }) => {
    const answer = await who.api.send<{ url: string; expires_at: string }>("POST", `/emails/${id}/share`, {
      expires_in: field(form, "expires_in") || "1 day",
    });
    who.flash(
      answer.ok
        ? successNotice(
            html`Anyone with this link can read the email until ${timestamp(answer.body.expires_at)}:
            ${shownOnce("share-link", answer.body.url, "Copy link")}`,
          )
        : errorNotice("No link was made.", answer.message),
    );
    return { redirect: emailPath(id) };
  });

  dashboard.action("/emails/:id/unshare", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send("DELETE", `/emails/${id}/share`);
    who.flash(
      answer.ok ? successNotice("Every share link of this email is revoked.") : errorNotice("The links were not revoked.", answer.message),
    );
    return { redirect: emailPath(id) };
  });

  dashboard.action("/emails/:id/cancel", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send("POST", `/emails/${id}/cancel`);
    who.flash(
      answer.ok ? successNotice("The email is canceled: it will not be sent.") : errorNotice("The email was not canceled.", answer.message),
    );
    return { redirect: emailPath(id) };
  });

  dashboard.action("/emails/:id/reschedule", { params }, async (who, { params: { id }, form }) => {
    const answer = await who.api.send("PATCH", `/emails/${id}`, { scheduled_at: utcFromDatetimeLocal(field(form, "scheduled_at")) });
    who.flash(answer.ok ? successNotice("The email is rescheduled.") : errorNotice("The email was not rescheduled.", answer.message));
    return { redirect: emailPath(id) };
  });
}
