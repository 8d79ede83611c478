import { domainRegions } from "@tidings/domain";
import { field, type Dashboard, type FormFields, type SignedIn } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { csrfField, errorNotice, successNotice } from "../layout.js";
import { domainPath, domainsPath } from "./domains.js";

/** What a new domain (or a claim on one) is made with, as the form holds it. */
export interface NewDomainFields {
  name: string;
  region: string;
  custom_return_path: string;
}

export const newDomainFields = (form: FormFields): NewDomainFields => ({
  name: field(form, "name"),
  region: field(form, "region"),
  custom_return_path: field(form, "custom_return_path"),
});

/** The body of `POST /domains` or `POST /domains/claim`: an empty field is left out, for the API's default. */
export const newDomainBody = (fields: NewDomainFields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ""));

/** The same fields, hidden: a claim offered for a name keeps what was typed for it. */
export const hiddenDomainFields = (fields: NewDomainFields) =>
  Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`);

/**
 * The API's words when the name is another team's: its 403 points at claims, where the same 403 for a name
 * of the caller's own team does not (`createDomain.ts`).
 */
const heldByAnotherTeam = (answer: { status: number; message: string }) =>
  answer.status === 403 && answer.message.includes("/domains/claim");

/** The offer to claim a name another team holds, with what was typed for it. */
function claimOffer(who: SignedIn, fields: NewDomainFields): Html {
  return html`<section class="panel" aria-labelledby="claim-offer">
    <h2 id="claim-offer">Claim ${fields.name}</h2>
    <p>
      If you control this domain's DNS, you can take it over: Tidings gives you a TXT record to publish at the domain, and moves the domain
      to your team once it finds the record. The other team's domain is then deleted.
    </p>
    <form method="post" action="${domainsPath}/claim">
      ${csrfField(who.session.csrfToken)} ${hiddenDomainFields(fields)}
      <button type="submit">Claim ${fields.name}</button>
    </form>
  </section>`;
}

/** The form, filled with what was sent when the API refused it, so nothing typed is lost. */
function newDomainPage(who: SignedIn, sent: NewDomainFields, refused?: Html): Html {
  const title = "Add a domain";
  const region = sent.region || "us-east-1";
  return who.page(
    title,
    "domains",
    html`<p><a href="${domainsPath}">← All domains</a></p>
      <h1>${title}</h1>
      ${refused}
      <form method="post" action="${domainsPath}" class="panel">
        ${csrfField(who.session.csrfToken)}
        <div class="fields">
          <div class="field">
            <label for="domain_name">Domain name</label>
            <input id="domain_name" name="name" type="text" required maxlength="253" placeholder="mail.example.com" value="${sent.name}" />
          </div>
          <div class="field">
            <label for="domain_region">Region</label>
            <select id="domain_region" name="region">
              ${domainRegions.map((r) => html`<option value="${r}" ${r === region && html` selected`}>${r}</option>`)}
            </select>
          </div>
          <div class="field">
            <label for="domain_return_path">Custom return path (optional)</label>
            <input
              id="domain_return_path"
              name="custom_return_path"
              type="text"
              maxlength="63"
              placeholder="send"
              aria-describedby="domain_return_path_hint"
              value="${sent.custom_return_path}"
            />
          </div>
          <div class="field"><button type="submit">Add domain</button></div>
        </div>
        <p class="muted hint" id="domain_return_path_hint">
          The return path is the subdomain bounces return to, <code>send</code> when left empty. The region and the return path cannot be
          changed later.
        </p>
      </form>`,
  );
}

/** A new domain: its name, region and return path; then its page, with the DNS records to publish. */
export function domainCreatePages(dashboard: Dashboard): void {
  dashboard.page("/domains/new", {}, async (who) => newDomainPage(who, newDomainFields({})));

  dashboard.action("/domains", {}, async (who, { form }) => {
    const sent = newDomainFields(form);
    const answer = await who.api.send<{ id: string }>("POST", "/domains", newDomainBody(sent));
    if (!answer.ok) {
      const refused = html`${errorNotice("The domain was not added.", answer.message)} ${heldByAnotherTeam(answer) && claimOffer(who, sent)}`;
      return { status: answer.status, page: newDomainPage(who, sent, refused) };
    }
    who.flash(successNotice("The domain is added. Publish its DNS records at your DNS provider, then verify them."));
    return { redirect: domainPath(answer.body.id) };
  });
}
