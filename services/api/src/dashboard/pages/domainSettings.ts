import { tlsModes } from "@tidings/domain";
import { field, type FormFields } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { csrfField } from "../layout.js";
import type { DomainItem } from "./domains.js";

/** The settings a person may change, as the form posts them: a ticked box is `on`, an unticked one absent. */
const settingNames = ["open_tracking", "click_tracking", "tracking_subdomain", "tls", "sending", "receiving"] as const;
export type DomainSettingFields = Record<(typeof settingNames)[number], string>;

const ticked = (on: boolean) => (on ? "on" : "");

export const settingsOfDomain = (d: DomainItem): DomainSettingFields => ({
  open_tracking: ticked(d.open_tracking),
  click_tracking: ticked(d.click_tracking),
  tracking_subdomain: d.tracking_subdomain,
  tls: d.tls,
  sending: ticked(d.capabilities.sending === "enabled"),
  receiving: ticked(d.capabilities.receiving === "enabled"),
});

export const settingsOfForm = (form: FormFields): DomainSettingFields =>
  Object.fromEntries(settingNames.map((name) => [name, field(form, name)])) as DomainSettingFields;

/** The settings the page showed, which the form carries hidden beside the ones the person chose. */
const shownSettings = (form: FormFields): DomainSettingFields =>
  Object.fromEntries(settingNames.map((name) => [name, field(form, `shown_${name}`)])) as DomainSettingFields;

/**
 * The body of `PATCH /domains/:id` with only what the person changed on the page, so a setting changed
 * elsewhere since the page was loaded is left as it now is. `undefined` when nothing changed.
 */
export function settingsChanges(form: FormFields): Record<string, unknown> | undefined {
  const chosen = settingsOfForm(form);
  const shown = shownSettings(form);
  const changed = settingNames.filter((name) => chosen[name] !== shown[name]);
  if (changed.length === 0) return undefined;
  const state = (on: string) => (on ? "enabled" : "disabled");
  const body: Record<string, unknown> = {};
  const capabilities: Record<string, string> = {};
  for (const name of changed) {
    if (name === "open_tracking" || name === "click_tracking") body[name] = chosen[name] === "on";
    else if (name === "sending" || name === "receiving") capabilities[name] = state(chosen[name]);
    else body[name] = chosen[name];
  }
  if (Object.keys(capabilities).length > 0) body.capabilities = capabilities;
  return body;
}

const checkbox = (name: string, label: string, on: string, describedBy?: string) =>
  html`<label
    ><input type="checkbox" name="${name}" ${on && html`checked`} ${describedBy && html`aria-describedby="${describedBy}"`} /><span
      >${label}</span
    ></label
  >`;

/** The settings form: `values` as the person left them, `shown` as the domain has them, posted hidden. */
export function settingsForm(options: {
  action: string;
  csrfToken: string;
  name: string;
  values: DomainSettingFields;
  shown: DomainSettingFields;
}): Html {
  const { values, shown } = options;
  return html`<h2 id="domain-settings">Settings</h2>
    <form method="post" action="${options.action}" class="panel" aria-labelledby="domain-settings">
      ${csrfField(options.csrfToken)}
      ${settingNames.map((name) => html`<input type="hidden" name="${`shown_${name}`}" value="${shown[name]}" />`)}
      <fieldset>
        <legend>Tracking</legend>
        <div class="checks">
          ${checkbox("open_tracking", "Open tracking", values.open_tracking)}
          ${checkbox("click_tracking", "Click tracking", values.click_tracking)}
        </div>
        <div class="field">
          <label for="tracking_subdomain">Tracking subdomain</label>
          <input
            id="tracking_subdomain"
            name="tracking_subdomain"
            type="text"
            required
            maxlength="63"
            aria-describedby="tracking_subdomain_hint"
            value="${values.tracking_subdomain}"
          />
          <p class="muted hint" id="tracking_subdomain_hint">
            Tracked links go through <code>${values.tracking_subdomain || "links"}.${options.name}</code>; a CNAME record points it at
            Tidings.
          </p>
        </div>
      </fieldset>
      <fieldset>
        <legend>Capabilities</legend>
        <div class="checks">
          ${checkbox("sending", "Sending", values.sending)} ${checkbox("receiving", "Receiving", values.receiving, "receiving_hint")}
        </div>
        <p class="muted hint" id="receiving_hint">At least one stays on. Receiving adds an MX record to publish.</p>
      </fieldset>
      <div class="fields">
        <div class="field">
          <label for="domain_tls">TLS</label>
          <select id="domain_tls" name="tls" aria-describedby="domain_tls_hint">
            ${tlsModes.map((mode) => html`<option value="${mode}" ${mode === values.tls && html` selected`}>${mode}</option>`)}
          </select>
          <p class="muted hint" id="domain_tls_hint">
            Opportunistic sends over TLS where the receiving server offers it; enforced sends nothing to a server without it.
          </p>
        </div>
      </div>
      <p class="muted">The region and the return path are set when a domain is added.</p>
      <p><button type="submit">Save settings</button></p>
    </form>`;
}
