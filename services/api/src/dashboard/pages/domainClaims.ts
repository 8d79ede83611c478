import { z } from "zod";
import type { Dashboard, SignedIn } from "../dashboard.js";
import { facts } from "../facts.js";
import { html, type Html } from "../html.js";
import { csrfField, errorNotice, successNotice, timestamp } from "../layout.js";
import { unavailablePage } from "../unavailable.js";
import { recordsTable } from "./dnsRecords.js";
import { hiddenDomainFields, newDomainBody, newDomainFields } from "./domainCreate.js";
import { claimPath, claimStatusBadge, domainPath, domainsPath, isOpenClaim, type DomainClaim } from "./domains.js";

const params = z.object({ id: z.guid() });

/** Why a claim is blocked, in words: the holder still uses the name (docs/wire-compatibility.md §6.5). */
const blockedWords: Record<string, string> = {
  recent_owner_activity:
    "The team that holds the domain sent email from it in the last 24 hours. Verify again once a day has passed without its mail.",
  pending_scheduled_emails: "The team that holds the domain has email scheduled from it. Verify again once that mail is sent or canceled.",
  grace_period: "The domain changed hands recently. Verify again later.",
};

/** What the claim's state means for the person, and what they can do next. */
function claimState(who: SignedIn, c: DomainClaim): Html {
  const verify = html`<form method="post" action="${claimPath(c.domain_id)}/verify">
    ${csrfField(who.session.csrfToken)}<button type="submit">Verify the claim</button>
  </form>`;
  const again = html`<form method="post" action="${domainsPath}/claim">
    ${csrfField(who.session.csrfToken)} ${hiddenDomainFields({ name: c.name, region: c.region, custom_return_path: "" })}
    <button type="submit">Claim ${c.name} again</button>
  </form>`;
  switch (c.status) {
    case "pending":
      return html`<p>Publish the TXT record below at your DNS provider, then verify the claim.</p>
        ${verify}`;
    case "failed":
      return html`${errorNotice("The claim's last check failed.", c.failure_reason ?? undefined)}
        <p>Publish the TXT record below (DNS changes can take a while to show), then verify again.</p>
        ${verify}`;
    case "blocked":
      return html`${errorNotice("The claim is blocked.", (c.blocked_reason && blockedWords[c.blocked_reason]) ?? c.blocked_reason ?? undefined)}
      ${verify}`;
    case "verified":
      return html`<p>The record is found; the domain is moving to your team. Verify again to finish the move.</p>
        ${verify}`;
    case "completed":
      return html`<p>The domain is your team's now. <a href="${domainPath(c.domain_id)}">Go to ${c.name}</a> for its DNS records.</p>`;
    case "expired":
      return html`<p>The claim expired before it was verified. A new claim gives a new record to publish.</p>
        ${again}`;
    case "superseded":
      return html`<p>A newer claim on ${c.name} replaced this one: only the newest claim on a domain can be verified.</p>
        ${again}`;
    case "canceled":
      return html`<p>The claim was canceled.</p>
        ${again}`;
  }
}

function claimPage(who: SignedIn, c: DomainClaim): Html {
  const title = `Claim on ${c.name}`;
  return who.page(
    title,
    "domains",
    html`<p><a href="${domainsPath}">← All domains</a></p>
      <h1>${title} ${claimStatusBadge(c.status)}</h1>
      <section class="panel" aria-label="Facts">
        ${facts([
          ["Status", claimStatusBadge(c.status)],
          ["Region", c.region],
          ["Created", timestamp(c.created_at)],
          [c.status === "expired" ? "Expired" : "Expires", isOpenClaim(c.status) || c.status === "expired" ? timestamp(c.expires_at) : ""],
          ["Id", html`<code>${c.id}</code>`],
        ])}
      </section>
      <section class="panel" aria-label="State">${claimState(who, c)}</section>
      ${
        c.status !== "completed" &&
        html`<h2>Record to publish</h2>
          ${recordsTable("The claim's DNS record", [{ record: "Claim", ...c.record }])}`
      }`,
  );
}

/** Claims: start one on a name another team holds, its page with the TXT record to publish, and verify. */
export function domainClaimPages(dashboard: Dashboard): void {
  dashboard.action("/domains/claim", {}, async (who, { form }) => {
    const answer = await who.api.send<DomainClaim>("POST", "/domains/claim", newDomainBody(newDomainFields(form)));
    if (!answer.ok) {
      who.flash(errorNotice("The claim was not made.", answer.message));
      return { redirect: domainsPath };
    }
    who.flash(successNotice("The claim is made. Publish its TXT record, then verify it. The Domains page lists your claims."));
    return { redirect: claimPath(answer.body.domain_id) };
  });

  dashboard.page("/domains/:id/claim", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.get<DomainClaim>(`/domains/${id}/claim`);
    if (!answer.ok)
      return unavailablePage(who, answer, { noun: "domain claim", active: "domains", back: { href: domainsPath, label: "All domains" } });
    return claimPage(who, answer.body);
  });

  dashboard.action("/domains/:id/claim/verify", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send<DomainClaim>("POST", `/domains/${id}/claim/verify`);
    if (!answer.ok) who.flash(errorNotice("The claim was not verified.", answer.message));
    else if (answer.body.status === "completed") who.flash(successNotice(`The claim succeeded: ${answer.body.name} is your team's now.`));
    else who.flash(successNotice("The claim was checked. Its state is below."));
    return { redirect: claimPath(id) };
  });
}
