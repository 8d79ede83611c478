import { TidingsError } from "@tidings/core";
import { isDomainError, renderTemplate, type RenderedTemplate, type TemplateForSend, type TemplateOverrides } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { findTemplate } from "./templateStreams.js";

export type { RenderedTemplate, TemplateForSend, TemplateOverrides };

/**
 * The latest published version of a team's template, by id or alias, for a send. It folds the template's
 * stream instead of reading the read model: a send right after a publish must see it, and a send must never
 * use a version the read model has not caught up with. An unknown or unpublished template is a 422
 * `validation_error` (docs/wire-compatibility.md §10.3: only published templates can be used), not a 404: the send is what is wrong.
 */
export async function templateForSend(services: { store: EventStore }, teamId: string, idOrAlias: string): Promise<TemplateForSend> {
  const template = await findTemplate(services.store, teamId, idOrAlias);
  if (!template) throw new TidingsError("validation_error", `Template \`${idOrAlias}\` not found.`);
  const published = template.published;
  if (!published)
    throw new TidingsError("validation_error", `Template \`${idOrAlias}\` is not published. Publish it before sending with it.`);
  const { name, subject, from, replyTo, html, text, variables } = published.content;
  return { templateId: template.templateId, version: published.version, name, subject, from, replyTo, html, text, variables };
}

/** `renderTemplate` for the send path: a broken rule is thrown as the TidingsError the API answers with. */
export function renderTemplateForSend(
  template: TemplateForSend,
  variables: Readonly<Record<string, unknown>>,
  overrides: TemplateOverrides = {},
): RenderedTemplate {
  const rendered = renderTemplate(template, variables, overrides);
  if (isDomainError(rendered)) throw new TidingsError(rendered.name, rendered.message);
  return rendered;
}
