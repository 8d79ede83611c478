import { z } from "zod";
import { field, type Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { csrfField, errorNotice, shownOnce, successNotice, timestamp } from "../layout.js";
import { confirmedButton } from "../lists.js";
import { pagedList } from "../pagedList.js";
import { cursorQuery } from "../pagination.js";
import { dashboardPath } from "../sessionCookie.js";

interface ApiKeyItem {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

const path = `${dashboardPath}/api-keys`;

/** API keys: the list, a page at a time; a form to create one (its token shown once, on the next page only); and delete. */
export function apiKeyPages(dashboard: Dashboard): void {
  dashboard.page("/api-keys", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const title = "API keys";
    const csrfToken = who.session.csrfToken;
    const row = (key: ApiKeyItem) => [
      key.name,
      timestamp(key.created_at),
      key.last_used_at ? timestamp(key.last_used_at) : html`<span class="muted">never</span>`,
      confirmedButton({
        action: `${path}/${key.id}/delete`,
        csrfToken,
        label: "Delete",
        name: key.name,
        question: `Delete the key “${key.name}”? Programs using it stop working at once.`,
      }),
    ];
    const list = await pagedList(who, query, {
      api: { path: "/api-keys" },
      page: { path },
      what: "The API keys",
      empty: "No API keys.",
      caption: "API keys",
      columns: ["Name", "Created", "Last used", ""],
      row,
    });
    return who.page(
      title,
      "api-keys",
      html`<h1>${title}</h1>
        <form method="post" action="${path}" class="panel">
          <h2>Create a key</h2>
          ${csrfField(csrfToken)}
          <div class="fields">
            <div class="field">
              <label for="key_name">Name</label><input id="key_name" name="name" type="text" required maxlength="50" />
            </div>
            <div class="field">
              <label for="key_permission">Permission</label>
              <select id="key_permission" name="permission">
                <option value="full_access">Full access</option>
                <option value="sending_access">Sending access</option>
              </select>
            </div>
            <div class="field"><button type="submit">Create key</button></div>
          </div>
        </form>
        ${list}`,
    );
  });

  dashboard.action("/api-keys", {}, async (who, { form }) => {
    const answer = await who.api.send<{ id: string; token: string }>("POST", "/api-keys", {
      name: field(form, "name"),
      permission: field(form, "permission") || "full_access",
    });
    who.flash(
      answer.ok
        ? successNotice(
            html`Key “${field(form, "name")}” created. Copy its token now: it is shown only this once.
            ${shownOnce("new-token", answer.body.token, "Copy token")}`,
          )
        : errorNotice("The key was not created.", answer.message),
    );
    return { redirect: path };
  });

  dashboard.action("/api-keys/:id/delete", { params: z.object({ id: z.guid() }) }, async (who, { params }) => {
    const answer = await who.api.send("DELETE", `/api-keys/${params.id}`);
    who.flash(answer.ok ? successNotice("The key was deleted.") : errorNotice("The key was not deleted.", answer.message));
    return { redirect: path };
  });
}
