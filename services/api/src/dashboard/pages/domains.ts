import { z } from "zod";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { csrfField, emptyState, errorNotice, successNotice, timestamp } from "../layout.js";
import { dataTable, listState } from "../lists.js";
import { dashboardPath } from "../sessionCookie.js";

interface DomainItem {
  id: string;
  name: string;
  status: string;
  created_at: string;
  region: string;
}

interface DnsRecord {
  record: string;
  name: string;
  type: string;
  status: string;
  value: string;
  priority?: number;
}

interface DomainObject extends DomainItem {
  records: DnsRecord[];
  recommended_records: DnsRecord[];
}

const path = `${dashboardPath}/domains`;
const params = z.object({ id: z.guid() });

const statusBadge = (status: string) =>
  html`<span class="badge${status === "verified" ? " ok" : /failed|failure/.test(status) ? " bad" : " wait"}"
    >${status.replaceAll("_", " ")}</span
  >`;

/** A value with a button that copies it: a DNS record is pasted into another system, exactly. */
const copyable = (value: string, label: string) =>
  html`<code>${value}</code>
    <button class="secondary small" type="button" data-copy="${value}" aria-label="${`Copy ${label}`}">Copy</button>`;

function recordsTable(caption: string, records: readonly DnsRecord[]) {
  const rows = records.map((r) => [
    r.record,
    html`${r.type}${r.priority !== undefined && html` <span class="muted">(priority ${r.priority})</span>`}`,
    copyable(r.name, `the ${r.record} record's name`),
    copyable(r.value, `the ${r.record} record's value`),
    statusBadge(r.status),
  ]);
  return dataTable(caption, ["Record", "Type", "Name", "Value", "Status"], rows);
}

const domainRow = (d: DomainItem) => [
  html`<a href="${path}/${d.id}">${d.name}</a>`,
  statusBadge(d.status),
  d.region,
  timestamp(d.created_at),
];

/** Domains: the list, and one domain's DNS records with copy buttons, their verification state, and re-verify. */
export function domainPages(dashboard: Dashboard): void {
  dashboard.page("/domains", {}, async (who) => {
    const title = "Domains";
    const answer = await who.api.get<{ data: DomainItem[] }>("/domains");
    const empty = html`No domains yet. Add one with <code>POST /domains</code>; its DNS records then show here.`;
    return who.page(
      title,
      "domains",
      html`<h1>${title}</h1>
        ${listState(answer, "The domains", empty, (domains) => dataTable("Domains", ["Domain", "Status", "Region", "Created"], domains.map(domainRow)))}`,
    );
  });

  dashboard.page("/domains/:id", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.get<DomainObject>(`/domains/${id}`);
    if (!answer.ok) {
      const missing = answer.status === 404;
      const title = missing ? "Domain not found" : "Domain";
      const message = missing ? "There is no domain with this id in your team." : "The domain could not be loaded.";
      return {
        status: missing ? 404 : 200,
        page: who.page(
          title,
          "domains",
          html`<h1>${title}</h1>
            ${errorNotice(message, answer.message)}`,
        ),
      };
    }
    const d = answer.body;
    return who.page(
      d.name,
      "domains",
      html`<p><a href="${path}">← All domains</a></p>
        <h1>${d.name} ${statusBadge(d.status)}</h1>
        <form method="post" action="${path}/${d.id}/verify" class="panel">
          ${csrfField(who.session.csrfToken)}
          <p>Publish these records at your DNS provider, then ask Tidings to check them again.</p>
          <button type="submit">Verify DNS records</button>
        </form>
        <h2>Required records</h2>
        ${d.records.length > 0 ? recordsTable("Required DNS records", d.records) : emptyState("No records are required.")}
        ${
          d.recommended_records.length > 0 &&
          html`<h2>Recommended records</h2>
            ${recordsTable("Recommended DNS records", d.recommended_records)}`
        }`,
    );
  });

  dashboard.action("/domains/:id/verify", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send("POST", `/domains/${id}/verify`);
    who.flash(
      answer.ok
        ? successNotice("Verification started: the records' states update as Tidings checks them. Reload to see them.")
        : errorNotice("Verification did not start.", answer.message),
    );
    return { redirect: `${path}/${id}` };
  });
}
