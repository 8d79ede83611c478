import { z } from "zod";
import { withQuery, type ApiAnswer } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { emptyState, errorNotice } from "../layout.js";
import { dashboardPath } from "../sessionCookie.js";
import { listState } from "../lists.js";
import { emailTable, noEmails, type EmailListItem } from "./emails.js";
import { chartedMetrics, metricChart, overviewRanges, rangeStart, type MetricsAnswer } from "./metricCharts.js";

const overviewQuery = z.object({ range: z.enum(overviewRanges.map(String) as [string, ...string[]]).optional() });

/** How many of the team's domains are verified, or that it has none yet and where to add one. */
function domainSummary(domains: ApiAnswer<{ data: { status: string }[] }>): Html {
  if (!domains.ok) return errorNotice("The domains could not be loaded.", domains.message);
  const all = domains.body.data;
  if (all.length === 0) return html`<p>No domains yet. <a href="${dashboardPath}/domains/new">Add one</a> to send from it.</p>`;
  const verified = all.filter((d) => d.status === "verified").length;
  return html`<p>
    ${verified} of ${all.length} ${all.length === 1 ? "domain is" : "domains are"} verified.
    <a href="${dashboardPath}/domains">See their DNS records</a>.
  </p>`;
}

/**
 * The first page after signing in: a chart a day of sent, delivered, bounced, complained, opened and clicked
 * emails over the chosen range (from `GET /emails/metrics`, days in UTC), the latest emails, and how many
 * domains are verified.
 */
export function overviewPage(dashboard: Dashboard): void {
  dashboard.page("", { querystring: overviewQuery }, async (who, { query }) => {
    const title = "Overview";
    const days = Number(query.range ?? overviewRanges[0]);
    const [metrics, emails, domains] = await Promise.all([
      who.api.get<MetricsAnswer>(
        withQuery("/emails/metrics", {
          start_date: rangeStart(new Date(), days),
          dimensions: "period",
          granularity: "daily",
          metrics: chartedMetrics.join(","),
        }),
      ),
      who.api.get<{ data: EmailListItem[] }>(withQuery("/emails", { limit: 10 })),
      who.api.get<{ data: { status: string }[] }>("/domains"),
    ]);
    const quiet = metrics.ok && chartedMetrics.every((metric) => metrics.body.totals[metric] === 0);
    return who.page(
      title,
      "overview",
      html`<h1>${title}</h1>
        <form class="range" method="get" action="${dashboardPath}">
          <label
            >Range
            <select name="range">
              ${overviewRanges.map((range) => html`<option value="${range}" ${range === days ? "selected" : ""}>Last ${range} days</option>`)}
            </select></label
          >
          <button type="submit">Show</button>
        </form>
        ${
          metrics.ok
            ? html`${quiet && emptyState(`No emails in the last ${days} days: the charts fill in as emails are sent.`)}
                <div class="charts">${chartedMetrics.map((metric) => metricChart(metric, metrics.body))}</div>`
            : errorNotice("The email metrics could not be loaded.", metrics.message)
        }
        <section class="panel" aria-labelledby="domains-heading">
          <h2 id="domains-heading">Domains</h2>
          ${domainSummary(domains)}
        </section>
        <h2>Latest emails</h2>
        ${listState(emails, "The emails", noEmails, emailTable)}
        <p><a href="${dashboardPath}/emails">All emails</a></p>`,
    );
  });
}
