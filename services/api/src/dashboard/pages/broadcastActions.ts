import { z } from "zod";
import { field, type Dashboard } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { csrfField, errorNotice, successNotice } from "../layout.js";
import { confirmedButton } from "../lists.js";
import { utcFromDatetimeLocal } from "../utcTime.js";
import { broadcastName, broadcastPath, broadcastsPath, type BroadcastItem } from "./broadcasts.js";

const params = z.object({ id: z.guid() });

/**
 * A broadcast's buttons for its state: a draft is edited, sent now, scheduled or deleted; a scheduled one
 * can be canceled (back to a draft), and a queued or sending one stopped.
 */
export function broadcastActionForms(b: BroadcastItem, csrfToken: string): Html {
  const action = (name: string) => `${broadcastPath(b.id)}/${name}`;
  const name = broadcastName(b);
  if (b.status === "draft")
    return html`<section class="panel" aria-labelledby="actions-heading">
      <h2 id="actions-heading">Send</h2>
      <p><a class="button secondary" href="${action("edit")}">Edit the draft</a></p>
      <form method="post" action="${action("send")}" data-confirm="${`Send “${name}” now, to every contact of its segment?`}">
        ${csrfField(csrfToken)}<button type="submit">Send now</button>
      </form>
      <form method="post" action="${action("schedule")}" class="fields">
        ${csrfField(csrfToken)}
        <div class="field">
          <label for="scheduled_at">Send at (UTC)</label><input id="scheduled_at" name="scheduled_at" type="datetime-local" required />
        </div>
        <div class="field"><button type="submit" class="secondary">Schedule</button></div>
      </form>
      <p>
        ${confirmedButton({
          action: action("delete"),
          csrfToken,
          label: "Delete",
          name,
          question: `Delete the draft “${name}”?`,
        })}
      </p>
    </section>`;
  const stoppable = b.status === "scheduled" || b.status === "queued" || b.status === "sending";
  if (!stoppable) return html``;
  const question =
    b.status === "scheduled"
      ? `Cancel sending “${name}”? It goes back to being a draft.`
      : `Stop sending “${name}”? Emails not yet handed to delivery are not sent, and it cannot be resumed.`;
  return html`<section class="panel" aria-labelledby="actions-heading">
    <h2 id="actions-heading">${b.status === "scheduled" ? "Scheduled" : "Sending"}</h2>
    ${confirmedButton({ action: action("cancel"), csrfToken, label: "Cancel", name, question })}
  </section>`;
}

/** The forms of `broadcastActionForms`, each one API call; the outcome shows on the broadcast's page. */
export function broadcastActions(dashboard: Dashboard): void {
  dashboard.action("/broadcasts/:id/send", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send("POST", `/broadcasts/${id}/send`, {});
    who.flash(answer.ok ? successNotice("The broadcast is sending.") : errorNotice("The broadcast was not sent.", answer.message));
    return { redirect: broadcastPath(id) };
  });

  dashboard.action("/broadcasts/:id/schedule", { params }, async (who, { params: { id }, form }) => {
    const answer = await who.api.send("POST", `/broadcasts/${id}/send`, {
      scheduled_at: utcFromDatetimeLocal(field(form, "scheduled_at")),
    });
    who.flash(answer.ok ? successNotice("The broadcast is scheduled.") : errorNotice("The broadcast was not scheduled.", answer.message));
    return { redirect: broadcastPath(id) };
  });

  dashboard.action("/broadcasts/:id/cancel", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send("POST", `/broadcasts/${id}/cancel`);
    who.flash(answer.ok ? successNotice("The broadcast is canceled.") : errorNotice("The broadcast was not canceled.", answer.message));
    return { redirect: broadcastPath(id) };
  });

  dashboard.action("/broadcasts/:id/delete", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send("DELETE", `/broadcasts/${id}`);
    if (!answer.ok) {
      who.flash(errorNotice("The draft was not deleted.", answer.message));
      return { redirect: broadcastPath(id) };
    }
    who.flash(successNotice("The draft is deleted."));
    return { redirect: broadcastsPath };
  });
}
