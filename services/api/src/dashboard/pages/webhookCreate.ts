import { webhookEventTypes } from "@tidings/domain";
import { field, type Dashboard, type SignedIn } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { csrfField, errorNotice, shownOnce, successNotice } from "../layout.js";
import { webhookPath, webhooksPath } from "./webhooks.js";

/** The event types by what they are about (`email`, `contact`, `domain`): the first part of their names. */
const eventGroups = [...new Set(webhookEventTypes.map((type) => type.split(".")[0]!))].map(
  (group) => [group, webhookEventTypes.filter((type) => type.startsWith(`${group}.`))] as const,
);

function eventCheckboxes(chosen: ReadonlySet<string>): Html {
  return html`<fieldset>
    <legend>Events to send</legend>
    ${eventGroups.map(
      ([group, types]) =>
        html`<fieldset>
          <legend>${group[0]!.toUpperCase()}${group.slice(1)} events</legend>
          <div class="checks">
            ${types.map(
              (type) =>
                html`<label
                  ><input type="checkbox" name="events" value="${type}" ${chosen.has(type) && html`checked`} /><span class="mono"
                    >${type}</span
                  ></label
                >`,
            )}
          </div>
        </fieldset>`,
    )}
  </fieldset>`;
}

/** The form, filled with what was sent when the API refused it, so nothing typed is lost. */
function newEndpointPage(who: SignedIn, sent: { endpoint: string; events: string[] }, refused?: Html): Html {
  const title = "Add a webhook endpoint";
  return who.page(
    title,
    "webhooks",
    html`<p><a href="${webhooksPath}">← All webhooks</a></p>
      <h1>${title}</h1>
      ${refused}
      <form method="post" action="${webhooksPath}" class="panel">
        ${csrfField(who.session.csrfToken)}
        <div class="field">
          <label for="webhook_endpoint">Endpoint URL</label>
          <input
            id="webhook_endpoint"
            name="endpoint"
            type="url"
            required
            maxlength="2048"
            placeholder="https://example.com/webhooks"
            value="${sent.endpoint}"
          />
        </div>
        ${eventCheckboxes(new Set(sent.events))}
        <button type="submit">Add endpoint</button>
      </form>`,
  );
}

/** A new endpoint: its URL and the events it takes; its signing secret is shown once, on its page. */
export function webhookCreatePages(dashboard: Dashboard): void {
  dashboard.page("/webhooks/new", {}, async (who) => newEndpointPage(who, { endpoint: "", events: ["email.delivered", "email.bounced"] }));

  dashboard.action("/webhooks", {}, async (who, { form }) => {
    const sent = { endpoint: field(form, "endpoint"), events: form.events ?? [] };
    const answer = await who.api.send<{ id: string; signing_secret: string }>("POST", "/webhooks", sent);
    if (!answer.ok)
      return { status: answer.status, page: newEndpointPage(who, sent, errorNotice("The endpoint was not added.", answer.message)) };
    who.flash(
      successNotice(
        html`The endpoint is added. Copy its signing secret now: it is shown only this once.
        ${shownOnce("signing-secret", answer.body.signing_secret, "Copy secret")}`,
      ),
    );
    return { redirect: webhookPath(answer.body.id) };
  });
}
