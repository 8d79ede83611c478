import { z } from "zod";
import { withQuery } from "../apiCalls.js";
import { field, type Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { csrfField, errorNotice, successNotice, timestamp } from "../layout.js";
import { confirmedButton, pagedTable } from "../lists.js";
import { cursorQuery, listPageSize } from "../pagination.js";
import { dashboardPath } from "../sessionCookie.js";

interface SuppressionItem {
  id: string;
  email: string;
  origin: string;
  created_at: string;
}

const path = `${dashboardPath}/suppressions`;

/** The suppression list: addresses Tidings will not send to, a page at a time; add one, remove one. */
export function suppressionPages(dashboard: Dashboard): void {
  dashboard.page("/suppressions", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const title = "Suppressions";
    const answer = await who.api.get<{ has_more: boolean; data: SuppressionItem[] }>(
      withQuery("/suppressions", { limit: listPageSize, after: query.after, before: query.before }),
    );
    const csrfToken = who.session.csrfToken;
    const row = (s: SuppressionItem) => [
      s.email,
      s.origin.replaceAll("_", " "),
      timestamp(s.created_at),
      confirmedButton({
        action: `${path}/${s.id}/delete`,
        csrfToken,
        label: "Remove",
        name: s.email,
        question: `Remove ${s.email} from the list? Tidings will send to it again.`,
      }),
    ];
    return who.page(
      title,
      "suppressions",
      html`<h1>${title}</h1>
        <p class="muted">Tidings sends nothing to these addresses. Bounces and complaints add them; you can add and remove them here.</p>
        <form method="post" action="${path}" class="panel">
          ${csrfField(csrfToken)}
          <div class="fields">
            <div class="field">
              <label for="suppress_email">Email address</label><input id="suppress_email" name="email" type="email" required />
            </div>
            <div class="field"><button type="submit">Add to the list</button></div>
          </div>
        </form>
        ${pagedTable(answer, {
          what: "The suppression list",
          empty: "No address is suppressed.",
          caption: "Suppressed addresses",
          columns: ["Email", "Origin", "Added", ""],
          row,
          path,
          cursor: query,
        })}`,
    );
  });

  dashboard.action("/suppressions", {}, async (who, { form }) => {
    const email = field(form, "email");
    const answer = await who.api.send("POST", "/suppressions", { email });
    who.flash(answer.ok ? successNotice(html`${email} is suppressed.`) : errorNotice("The address was not added.", answer.message));
    return { redirect: path };
  });

  dashboard.action("/suppressions/:id/delete", { params: z.object({ id: z.guid() }) }, async (who, { params }) => {
    const answer = await who.api.send("DELETE", `/suppressions/${params.id}`);
    who.flash(
      answer.ok ? successNotice("The address was removed from the list.") : errorNotice("The address was not removed.", answer.message),
    );
    return { redirect: path };
  });
}
