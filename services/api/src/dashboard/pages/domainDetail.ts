import { z } from "zod";
import type { Dashboard, SignedIn } from "../dashboard.js";
import { facts } from "../facts.js";
import { html, type Html } from "../html.js";
import { csrfField, emptyState, errorNotice, successNotice, timestamp } from "../layout.js";
import { confirmedButton } from "../lists.js";
import { unavailablePage } from "../unavailable.js";
import { recordsTable, verificationBadge, type DnsRecord } from "./dnsRecords.js";
import { settingsChanges, settingsForm, settingsOfDomain, settingsOfForm, type DomainSettingFields } from "./domainSettings.js";
import { claimPath, domainPath, domainsPath, type DomainItem } from "./domains.js";

/** What `GET /domains/:id` answers. */
interface DomainObject extends DomainItem {
  records: DnsRecord[];
  recommended_records: DnsRecord[];
}

const params = z.object({ id: z.guid() });
const back = { href: domainsPath, label: "All domains" };

/** A domain's page; `typed` holds the settings a refused form sent, shown again instead of the domain's. */
function domainPage(who: SignedIn, d: DomainObject, typed?: { values: DomainSettingFields; refused: Html }): Html {
  const csrfToken = who.session.csrfToken;
  return who.page(
    d.name,
    "domains",
    html`<p><a href="${domainsPath}">← All domains</a></p>
      <h1>${d.name} ${verificationBadge(d.status)}</h1>
      ${typed?.refused}
      <section class="panel" aria-label="Facts">
        ${facts([
          ["Status", verificationBadge(d.status)],
          ["Region", d.region],
          ["Return path", html`<code>${d.custom_return_path}.${d.name}</code>`],
          ["Created", timestamp(d.created_at)],
          ["Id", html`<code>${d.id}</code>`],
        ])}
      </section>
      <form method="post" action="${domainPath(d.id)}/verify" class="panel">
        ${csrfField(csrfToken)}
        <p>Publish these records at your DNS provider, then ask Tidings to check them again.</p>
        <button type="submit">Verify DNS records</button>
      </form>
      <h2>Required records</h2>
      ${d.records.length > 0 ? recordsTable("Required DNS records", d.records) : emptyState("No records are required.")}
      ${
        d.recommended_records.length > 0 &&
        html`<h2>Recommended records</h2>
          ${recordsTable("Recommended DNS records", d.recommended_records)}`
      }
      ${settingsForm({
        action: `${domainPath(d.id)}/settings`,
        csrfToken,
        name: d.name,
        values: typed?.values ?? settingsOfDomain(d),
        shown: settingsOfDomain(d),
      })}
      <h2 id="domain-delete">Delete</h2>
      <section class="panel" aria-labelledby="domain-delete">
        <p>Tidings stops sending from the domain and receiving for it at once; its DNS records can then go.</p>
        ${confirmedButton({
          action: `${domainPath(d.id)}/delete`,
          csrfToken,
          label: "Delete",
          name: d.name,
          question: `Delete the domain ${d.name}? Email from its addresses is refused from then on.`,
        })}
      </section>`,
  );
}

/**
 * One domain: its facts, its DNS records with copy buttons and their states, verify again, its settings
 * (only what changed is sent), and delete. A claim's placeholder id shows the claim, until it becomes the domain.
 */
export function domainDetailPages(dashboard: Dashboard): void {
  dashboard.page("/domains/:id", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.get<DomainObject>(`/domains/${id}`);
    if (answer.ok) return domainPage(who, answer.body);
    if (answer.status === 404 && (await who.api.get(`/domains/${id}/claim`)).ok) return { redirect: claimPath(id) };
    return unavailablePage(who, answer, { noun: "domain", active: "domains", back });
  });

  dashboard.action("/domains/:id/settings", { params }, async (who, { params: { id }, form }) => {
    const changes = settingsChanges(form);
    if (!changes) {
      who.flash(successNotice("Nothing was changed."));
      return { redirect: domainPath(id) };
    }
    const answer = await who.api.send("PATCH", `/domains/${id}`, changes);
    if (answer.ok) {
      who.flash(successNotice("The settings are saved. The records below are what the domain needs now."));
      return { redirect: domainPath(id) };
    }
    const domain = await who.api.get<DomainObject>(`/domains/${id}`);
    if (!domain.ok) return unavailablePage(who, domain, { noun: "domain", active: "domains", back });
    const refused = errorNotice("The settings were not saved.", answer.message);
    return { status: answer.status, page: domainPage(who, domain.body, { values: settingsOfForm(form), refused }) };
  });

  dashboard.action("/domains/:id/verify", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send("POST", `/domains/${id}/verify`);
    who.flash(
      answer.ok
        ? successNotice("Verification started: the records' states update as Tidings checks them. Reload to see them.")
        : errorNotice("Verification did not start.", answer.message),
    );
    return { redirect: domainPath(id) };
  });

  dashboard.action("/domains/:id/delete", { params }, async (who, { params: { id } }) => {
    const answer = await who.api.send("DELETE", `/domains/${id}`);
    if (!answer.ok) {
      who.flash(errorNotice("The domain was not deleted.", answer.message));
      return { redirect: domainPath(id) };
    }
    who.flash(successNotice("The domain is deleted."));
    return { redirect: domainsPath };
  });
}
