import { isUuid } from "@tidings/core";
import { reservationStream, reservedBy, type ReserveOptions } from "@tidings/commands";
import { fold, templateDecider, templateStream, type LiveTemplate, type TemplateEvent, type TemplateState } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/** The reservation stream that makes an alias unique within a team (DESIGN §1). */
export const templateAliasStream = (teamId: string, alias: string) => reservationStream(teamId, "template-alias", alias);

export async function loadTemplate(store: EventStore, templateId: string): Promise<TemplateState> {
  const events = await store.readStream(templateStream(templateId));
  return fold(templateDecider, events.map((e) => ({ type: e.type, data: e.data }) as TemplateEvent));
}

const isLive = (state: TemplateState, teamId: string): state is LiveTemplate => state.status === "active" && state.teamId === teamId;

/**
 * A live template of the team, named by id or alias, read from the event store rather than the read model
 * so that a write or a send right after another write never acts on a stale row. The alias goes through
 * its reservation stream, the one place that says which template holds it.
 */
export async function findTemplate(store: EventStore, teamId: string, idOrAlias: string): Promise<LiveTemplate | undefined> {
  if (isUuid(idOrAlias)) {
    const byId = await loadTemplate(store, idOrAlias);
    if (isLive(byId, teamId)) return byId;
  }
  const owner = await reservedBy(store, templateAliasStream(teamId, idOrAlias));
  if (!owner) return undefined;
  const byAlias = await loadTemplate(store, owner);
  return isLive(byAlias, teamId) && byAlias.content.alias === idOrAlias ? byAlias : undefined;
}

/** How long a claim whose template does not exist yet counts as a create still under way. */
const claimGraceMs = 60_000;

/**
 * A claim holds while its template exists with that alias. A process that died after claiming and before
 * creating, or after changing an alias and before releasing the old one, leaves a claim nobody holds; the
 * next claimant takes it over.
 */
export function aliasClaimCheck(store: EventStore, teamId: string, alias: string, now: () => Date): ReserveOptions {
  return {
    async stillHeld(ownerId, claimedAt) {
      const state = await loadTemplate(store, ownerId);
      if (state.status === "none") return now().getTime() - claimedAt.getTime() < claimGraceMs;
      return isLive(state, teamId) && state.content.alias === alias;
    },
  };
}
