import { newId, TidingsError } from "@tidings/core";
import { commandRunner, createClaiming, type Changed, type CommandDeps } from "@tidings/commands";
import { templateDecider, templateStream, TEMPLATE_NAME_MAX, type TemplateCommand, type TemplateContent } from "@tidings/domain";
import type { EventMetadata } from "@tidings/eventstore";
import { templateAliasClaim } from "./claimTemplateAlias.js";
import { findTemplate } from "../lookups/templateStreams.js";

const run = commandRunner(templateStream, templateDecider);

function create(
  deps: CommandDeps,
  teamId: string,
  content: TemplateContent,
  duplicatedFrom: string | null,
  metadata: EventMetadata,
  templateId?: string,
): Promise<Changed> {
  const claim = content.alias === null ? null : templateAliasClaim(deps, teamId, content.alias);
  const command = (templateId: string, now: string): TemplateCommand => ({
    type: "CreateTemplate",
    templateId,
    teamId,
    versionId: newId(),
    content,
    duplicatedFrom,
    now,
  });
  return createClaiming(deps, { decider: templateDecider, run, command }, claim, metadata, templateId);
}

export function createTemplate(
  deps: CommandDeps,
  teamId: string,
  content: TemplateContent,
  metadata: EventMetadata,
  /** Given by a caller that must create the same resource when it runs again (a resumed migration). */
  templateId?: string,
): Promise<Changed> {
  return create(deps, teamId, content, null, metadata, templateId);
}

const copySuffix = " (copy)";

/** A new draft with the source's latest content; an alias is unique, so the copy has none. */
export async function duplicateTemplate(deps: CommandDeps, teamId: string, idOrAlias: string, metadata: EventMetadata): Promise<Changed> {
  const source = await findTemplate(deps.store, teamId, idOrAlias);
  if (!source) throw new TidingsError("not_found", "Template not found");
  const name = source.content.name.slice(0, TEMPLATE_NAME_MAX - copySuffix.length) + copySuffix;
  return create(deps, teamId, { ...source.content, name, alias: null }, source.templateId, metadata);
}
