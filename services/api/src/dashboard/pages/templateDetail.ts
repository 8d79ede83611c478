import { isDomainError } from "@tidings/domain";
import type { Dashboard } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { csrfField, errorNotice, successNotice, timestamp } from "../layout.js";
import { facts } from "../facts.js";
import { sandboxedFrame } from "../sandboxedFrame.js";
import { unavailablePage } from "../unavailable.js";
import {
  previewSrc,
  renderPreview,
  sampleQuery,
  sampleValues,
  templateParams,
  type SampleValues,
  type TemplateObject,
} from "./templatePreview.js";
import { templatePath, templatesPath, templateStatusBadge } from "./templates.js";

/** A field a variable, filled with its sample; a GET form, as a preview changes nothing. */
function samplesForm(t: TemplateObject, samples: SampleValues): Html {
  if (t.variables.length === 0) return html`<p class="muted">This template has no variables.</p>`;
  return html`<form method="get" action="${templatePath(t.id)}" class="panel">
    <p class="muted">Sample values, filled with each variable's fallback. An empty field is a value a send does not give.</p>
    <div class="fields">
      ${t.variables.map(
        (v, i) =>
          html`<div class="field">
            <label for="variable_${i}">${v.key} <span class="muted">(${v.type})</span></label>
            <input
              id="variable_${i}"
              name="${v.key}"
              type="text"
              ${v.type === "number" && html`inputmode="decimal"`}
              value="${samples[v.key] ?? ""}"
            />
          </div>`,
      )}
      <div class="field"><button type="submit">Preview</button></div>
    </div>
  </form>`;
}

function publishForm(t: TemplateObject, csrfToken: string): Html {
  if (t.status === "published" && !t.has_unpublished_versions)
    return html`<p class="muted">Published ${timestamp(t.published_at)}; not changed since. Sends use this version.</p>`;
  return html`<form method="post" action="${templatePath(t.id)}/publish" class="panel">
    ${csrfField(csrfToken)}
    <p>
      ${t.status === "draft" ? "A draft: nothing can be sent with it until it is published." : "This draft has changes sends do not use yet."}
    </p>
    <button type="submit">Publish</button>
  </form>`;
}

/**
 * One template: its facts, Publish, and a preview of its latest draft with sample variables, rendered as a
 * send would render it and shown in a sandboxed frame.
 */
export function templateDetailPages(dashboard: Dashboard): void {
  dashboard.page("/templates/:id", { params: templateParams, querystring: sampleQuery }, async (who, { params: { id }, query }) => {
    const answer = await who.api.get<TemplateObject>(`/templates/${id}`);
    if (!answer.ok)
      return unavailablePage(who, answer, { noun: "template", active: "templates", back: { href: templatesPath, label: "All templates" } });
    const t = answer.body;
    const samples = sampleValues(t, query);
    const rendered = renderPreview(t, samples);
    const preview = isDomainError(rendered)
      ? errorNotice("The preview could not be rendered with these values.", rendered.message)
      : html`${rendered.subject && html`<p><strong>Subject:</strong> ${rendered.subject}</p>`}
        ${sandboxedFrame(previewSrc(id, samples), "The template rendered with the sample values, without its scripts")}`;
    return who.page(
      t.name,
      "templates",
      html`<p><a href="${templatesPath}">← All templates</a></p>
        <h1>${t.name} ${templateStatusBadge(t.status)}</h1>
        <section class="panel" aria-label="Summary">
          ${facts([
            ["Alias", t.alias && html`<code>${t.alias}</code>`],
            ["Subject", t.subject],
            ["From", t.from],
            ["Reply to", t.reply_to?.join(", ")],
            ["Updated", timestamp(t.updated_at)],
            ["Id", html`<code>${t.id}</code>`],
          ])}
        </section>
        ${publishForm(t, who.session.csrfToken)}
        <h2>Preview</h2>
        ${samplesForm(t, samples)} ${preview}`,
    );
  });

  dashboard.action("/templates/:id/publish", { params: templateParams }, async (who, { params: { id } }) => {
    const answer = await who.api.send("POST", `/templates/${id}/publish`);
    who.flash(
      answer.ok
        ? successNotice("The template is published: sends use this version now.")
        : errorNotice("The template was not published.", answer.message),
    );
    return { redirect: templatePath(id) };
  });
}
