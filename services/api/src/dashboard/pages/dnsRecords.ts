import { html } from "../html.js";
import { badge } from "../badges.js";
import { dataTable } from "../lists.js";

/** A DNS record as a domain or a claim lists it. */
export interface DnsRecord {
  record: string;
  name: string;
  type: string;
  status?: string;
  value: string;
  priority?: number;
}

/** A domain's or a record's verification state: verified, failed, or still to be (re)checked. */
export const verificationBadge = (status: string) =>
  badge(status, status === "verified" ? "ok" : /failed|failure/.test(status) ? "bad" : "wait");

/** A value with a button that copies it: a DNS record is pasted into another system, exactly. */
export const copyable = (value: string, label: string) =>
  html`<code>${value}</code>
    <button class="secondary small" type="button" data-copy="${value}" aria-label="${`Copy ${label}`}">Copy</button>`;

/** Records to publish, each name and value with its copy button, and their state where Tidings checks them. */
export function recordsTable(caption: string, records: readonly DnsRecord[]) {
  const checked = records.some((r) => r.status !== undefined);
  const rows = records.map((r) => [
    r.record,
    html`${r.type}${r.priority !== undefined && html` <span class="muted">(priority ${r.priority})</span>`}`,
    copyable(r.name, `the ${r.record} record's name`),
    copyable(r.value, `the ${r.record} record's value`),
    ...(checked ? [r.status ? verificationBadge(r.status) : ""] : []),
  ]);
  return dataTable(caption, ["Record", "Type", "Name", "Value", ...(checked ? ["Status"] : [])], rows);
}
