import { TidingsError, type Clock } from "@tidings/core";
import { release, reserve } from "@tidings/commands";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { aliasClaimCheck, templateAliasStream } from "../lookups/templateStreams.js";

type Deps = { store: EventStore; clock: Clock };

/**
 * Claims `alias` for the template, or refuses with 422 `validation_error`: docs/wire-compatibility.md §3.2 has no conflict name for a
 * taken value, and `validation_error` names the field like any other bad input.
 */
export async function claimTemplateAlias(deps: Deps, teamId: string, alias: string, templateId: string, metadata: EventMetadata) {
  const claim = await reserve(
    deps.store,
    templateAliasStream(teamId, alias),
    templateId,
    metadata,
    aliasClaimCheck(deps.store, teamId, alias, () => deps.clock.now()),
  );
  if (!claim.won) throw new TidingsError("validation_error", `A template with \`alias\` \`${alias}\` already exists.`);
}

export function releaseTemplateAlias(deps: Deps, teamId: string, alias: string, templateId: string, metadata: EventMetadata) {
  return release(deps.store, templateAliasStream(teamId, alias), templateId, metadata);
}
