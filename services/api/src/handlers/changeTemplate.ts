import { formatTimestamp, newId, TidingsError, type Clock } from "@tidings/core";
import { changed, DomainRejection, handleCommand, type Changed } from "@tidings/commands";
import {
  isDomainError,
  templateDecider,
  templateStream,
  type LiveTemplate,
  type TemplateCommand,
  type TemplateContent,
} from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { claimTemplateAlias, releaseTemplateAlias } from "./claimTemplateAlias.js";
import { findTemplate } from "../lookups/templateStreams.js";

type Deps = { store: EventStore; clock: Clock };

async function existing(deps: Deps, teamId: string, idOrAlias: string): Promise<LiveTemplate> {
  const template = await findTemplate(deps.store, teamId, idOrAlias);
  if (!template) throw new TidingsError("not_found", "Template not found");
  return template;
}

function run(deps: Deps, templateId: string, command: TemplateCommand, metadata: EventMetadata) {
  return handleCommand({ store: deps.store, streamId: templateStream(templateId), decider: templateDecider, command, metadata });
}

/**
 * An alias change claims the new alias before the edit and releases the old one after it, so the template
 * is never without the claim it shows.
 */
export async function updateTemplate(
  deps: Deps,
  teamId: string,
  idOrAlias: string,
  changes: Partial<TemplateContent>,
  metadata: EventMetadata,
): Promise<Changed> {
  const template = await existing(deps, teamId, idOrAlias);
  const id = template.templateId;
  const oldAlias = template.content.alias;
  const newAlias = changes.alias === undefined || changes.alias === oldAlias ? undefined : changes.alias;
  const command: TemplateCommand = { type: "UpdateTemplate", teamId, changes, versionId: newId(), now: formatTimestamp(deps.clock.now()) };
  // Refuse bad input before claiming an alias, so a rejected edit never holds one.
  const verdict = templateDecider.decide(command, template);
  if (isDomainError(verdict)) throw new DomainRejection(verdict);
  if (newAlias) await claimTemplateAlias(deps, teamId, newAlias, id, metadata);
  let position: Position | undefined;
  try {
    ({ position } = await run(deps, id, command, metadata));
  } catch (error) {
    if (newAlias) await releaseTemplateAlias(deps, teamId, newAlias, id, metadata);
    throw error;
  }
  if (newAlias !== undefined && oldAlias !== null) await releaseTemplateAlias(deps, teamId, oldAlias, id, metadata);
  return changed(id, position);
}

export async function publishTemplate(deps: Deps, teamId: string, idOrAlias: string, metadata: EventMetadata): Promise<Changed> {
  const { templateId } = await existing(deps, teamId, idOrAlias);
  const { position } = await run(deps, templateId, { type: "PublishTemplate", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
  return changed(templateId, position);
}

export async function deleteTemplate(deps: Deps, teamId: string, idOrAlias: string, metadata: EventMetadata): Promise<Changed> {
  const { templateId } = await existing(deps, teamId, idOrAlias);
  const { events, position } = await run(
    deps,
    templateId,
    { type: "DeleteTemplate", teamId, now: formatTimestamp(deps.clock.now()) },
    metadata,
  );
  for (const event of events)
    if (event.type === "TemplateDeleted" && event.data.alias !== null)
      await releaseTemplateAlias(deps, teamId, event.data.alias, templateId, metadata);
  return changed(templateId, position);
}
