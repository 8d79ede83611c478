import { z } from "zod";
import type { ClaimStatus } from "@tidings/domain";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { timestamp } from "../layout.js";
import { badge } from "../badges.js";
import { pagedList } from "../pagedList.js";
import { cursorQuery } from "../pagination.js";
import { dashboardPath } from "../sessionCookie.js";
import { verificationBadge } from "./dnsRecords.js";

/** An item of `GET /domains`. */
export interface DomainItem {
  id: string;
  name: string;
  status: string;
  created_at: string;
  region: string;
  capabilities: { sending: "enabled" | "disabled"; receiving: "enabled" | "disabled" };
  open_tracking: boolean;
  click_tracking: boolean;
  tracking_subdomain: string;
  tls: "opportunistic" | "enforced";
  custom_return_path: string;
}

/** An item of `GET /domains/claims`, and what `GET /domains/:id/claim` answers. */
export interface DomainClaim {
  id: string;
  name: string;
  status: ClaimStatus;
  domain_id: string;
  region: string;
  record: { type: "TXT"; name: string; value: string };
  blocked_reason: string | null;
  failure_reason: string | null;
  created_at: string;
  expires_at: string;
}

export const domainsPath = `${dashboardPath}/domains`;
export const domainPath = (id: string) => `${domainsPath}/${id}`;
/** A claim's page is its placeholder domain's: the domain it becomes once it succeeds. */
export const claimPath = (domainId: string) => `${domainPath(domainId)}/claim`;

const openClaims: readonly ClaimStatus[] = ["pending", "blocked", "failed"];
export const claimStatusBadge = (status: ClaimStatus) =>
  badge(status, status === "completed" || status === "verified" ? "ok" : openClaims.includes(status) ? "wait" : "bad");
export const isOpenClaim = (status: ClaimStatus) => openClaims.includes(status);

const capabilityWords = (d: DomainItem) =>
  (["sending", "receiving"] as const).filter((c) => d.capabilities[c] === "enabled").join(" and ") || "none";

const domainRow = (d: DomainItem) => [
  html`<a href="${domainPath(d.id)}">${d.name}</a>`,
  verificationBadge(d.status),
  capabilityWords(d),
  d.region,
  timestamp(d.created_at),
];

const claimRow = (c: DomainClaim) => [
  html`<a href="${claimPath(c.domain_id)}">${c.name}</a>`,
  claimStatusBadge(c.status),
  timestamp(c.created_at),
  isOpenClaim(c.status) ? timestamp(c.expires_at) : html`<span class="muted">—</span>`,
];

/** The page has two lists, each paged by cursors of its own. */
const claimCursors = { after: "claims_after", before: "claims_before", label: "Pages of claims" };
const query = z.object({ ...cursorQuery, claims_after: z.guid().optional(), claims_before: z.guid().optional() });

/** Domains: the team's domains and its claims on names other teams hold, each a page at a time. */
export function domainListPage(dashboard: Dashboard): void {
  dashboard.page("/domains", { querystring: query }, async (who, { query }) => {
    const title = "Domains";
    // Each list's pager keeps the other list where it is.
    const [domains, claims] = await Promise.all([
      pagedList<DomainItem>(who, query, {
        api: { path: "/domains" },
        page: { path: domainsPath, keep: { claims_after: query.claims_after, claims_before: query.claims_before } },
        what: "The domains",
        empty: "No domains yet. Add one to send from its addresses; Tidings then lists the DNS records to publish.",
        caption: "Domains, newest first",
        columns: ["Domain", "Status", "Capabilities", "Region", "Created"],
        row: domainRow,
      }),
      pagedList<DomainClaim>(
        who,
        { after: query.claims_after, before: query.claims_before },
        {
          api: { path: "/domains/claims" },
          page: { path: domainsPath, keep: { after: query.after, before: query.before }, cursorNames: claimCursors },
          what: "The claims",
          empty: "No claims. A domain another team registered can be claimed when you add it here.",
          caption: "Claims, newest first",
          columns: ["Domain", "Status", "Created", "Expires"],
          row: claimRow,
        },
      ),
    ]);
    return who.page(
      title,
      "domains",
      html`<h1>${title}</h1>
        <p><a class="button" href="${domainsPath}/new">Add a domain</a></p>
        ${domains}
        <h2>Claims</h2>
        <p class="muted">A claim takes over a domain another team registered, once you publish its TXT record.</p>
        ${claims}`,
    );
  });
}
