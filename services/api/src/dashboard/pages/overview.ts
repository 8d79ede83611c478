import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { errorNotice } from "../layout.js";
import { dashboardPath } from "../sessionCookie.js";
import { listState } from "../lists.js";
import { emailTable, noEmails, type EmailListItem } from "./emails.js";

/**
 * The first page after signing in: the latest emails and how many domains are verified. The charts of
 * issue #24 need `GET /emails/metrics`, which this page will read once the API serves it.
 */
export function overviewPage(dashboard: Dashboard): void {
  dashboard.page("", {}, async (who) => {
    const title = "Overview";
    const [emails, domains] = await Promise.all([
      who.api.get<{ data: EmailListItem[] }>(withQuery("/emails", { limit: 10 })),
      who.api.get<{ data: { status: string }[] }>("/domains"),
    ]);
    const verified = domains.ok ? domains.body.data.filter((d) => d.status === "verified").length : 0;
    return who.page(
      title,
      "overview",
      html`<h1>${title}</h1>
        <section class="panel" aria-labelledby="domains-heading">
          <h2 id="domains-heading">Domains</h2>
          ${
            domains.ok
              ? html`<p>
                  ${verified} of ${domains.body.data.length} ${domains.body.data.length === 1 ? "domain is" : "domains are"} verified.
                  <a href="${dashboardPath}/domains">See their DNS records</a>.
                </p>`
              : errorNotice("The domains could not be loaded.", domains.message)
          }
        </section>
        <h2>Latest emails</h2>
        ${listState(emails, "The emails", noEmails, emailTable)}
        <p><a href="${dashboardPath}/emails">All emails</a></p>
        <p class="muted">
          Charts of sent, delivered, bounced, opened and clicked emails arrive here with <code>GET /emails/metrics</code>.
        </p>`,
    );
  });
}
