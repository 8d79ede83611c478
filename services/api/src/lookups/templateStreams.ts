import { isUuid } from "@tidings/core";
import { claimHeldWhile, loadState, reservationStream, reservedBy, type ReserveOptions } from "@tidings/commands";
import { isLiveFor, templateDecider, templateStream, type LiveTemplate, type TemplateState } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/** The reservation stream that makes an alias unique within a team (DESIGN §1). */
export const templateAliasStream = (teamId: string, alias: string) => reservationStream(teamId, "template-alias", alias);

export const loadTemplate = (store: EventStore, templateId: string): Promise<TemplateState> =>
  loadState(store, templateStream(templateId), templateDecider);

/**
 * A live template of the team, named by id or alias, read from the event store rather than the read model
 * so that a write or a send right after another write never acts on a stale row. The alias goes through
 * its reservation stream, the one place that says which template holds it.
 */
export async function findTemplate(store: EventStore, teamId: string, idOrAlias: string): Promise<LiveTemplate | undefined> {
  if (isUuid(idOrAlias)) {
    const byId = await loadTemplate(store, idOrAlias);
    if (isLiveFor(byId, teamId)) return byId;
  }
  const owner = await reservedBy(store, templateAliasStream(teamId, idOrAlias));
  if (!owner) return undefined;
  const byAlias = await loadTemplate(store, owner);
  return isLiveFor(byAlias, teamId) && byAlias.content.alias === idOrAlias ? byAlias : undefined;
}

/** A claim holds while its template lives with that alias. */
export const aliasClaimCheck = (store: EventStore, teamId: string, alias: string, now: () => Date): ReserveOptions =>
  claimHeldWhile(
    (ownerId) => loadTemplate(store, ownerId),
    (template) => isLiveFor(template, teamId) && template.content.alias === alias,
    now,
  );
