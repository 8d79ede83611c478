import { formatTimestamp, newId, TidingsError, type Clock } from "@tidings/core";
import { commandRunner, decideCreate, type Changed } from "@tidings/commands";
import { templateDecider, templateStream, TEMPLATE_NAME_MAX, type TemplateCommand, type TemplateContent } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { claimTemplateAlias, releaseTemplateAlias } from "./claimTemplateAlias.js";
import { findTemplate } from "../lookups/templateStreams.js";

type Deps = { store: EventStore; clock: Clock };

const run = commandRunner(templateStream, templateDecider);

async function create(
  deps: Deps,
  teamId: string,
  content: TemplateContent,
  duplicatedFrom: string | null,
  metadata: EventMetadata,
): Promise<Changed> {
  const templateId = newId();
  const command: TemplateCommand = {
    type: "CreateTemplate",
    templateId,
    teamId,
    versionId: newId(),
    content,
    duplicatedFrom,
    now: formatTimestamp(deps.clock.now()),
  };
  // Refuse bad input before claiming the alias, so a rejected create never holds one.
  decideCreate(templateDecider, command);
  if (content.alias !== null) await claimTemplateAlias(deps, teamId, content.alias, templateId, metadata);
  try {
    return await run(deps.store, templateId, command, metadata);
  } catch (error) {
    if (content.alias !== null) await releaseTemplateAlias(deps, teamId, content.alias, templateId, metadata);
    throw error;
  }
}

export function createTemplate(deps: Deps, teamId: string, content: TemplateContent, metadata: EventMetadata): Promise<Changed> {
  return create(deps, teamId, content, null, metadata);
}

const copySuffix = " (copy)";

/** A new draft with the source's latest content; an alias is unique, so the copy has none. */
export async function duplicateTemplate(deps: Deps, teamId: string, idOrAlias: string, metadata: EventMetadata): Promise<Changed> {
  const source = await findTemplate(deps.store, teamId, idOrAlias);
  if (!source) throw new TidingsError("not_found", "Template not found");
  const name = source.content.name.slice(0, TEMPLATE_NAME_MAX - copySuffix.length) + copySuffix;
  return create(deps, teamId, { ...source.content, name, alias: null }, source.templateId, metadata);
}
