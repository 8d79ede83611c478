import { claimValue, release, type CommandDeps, type ValueClaim } from "@tidings/commands";
import type { EventMetadata } from "@tidings/eventstore";
import { aliasClaimCheck, templateAliasStream } from "../lookups/templateStreams.js";

/**
 * A template's alias, unique within its team. A taken alias is 422 `validation_error`: docs/wire-compatibility.md §3.2
 * has no conflict name for a taken value, and `validation_error` names the field like any other bad input.
 */
export const templateAliasClaim = (deps: CommandDeps, teamId: string, alias: string): ValueClaim => ({
  stream: templateAliasStream(teamId, alias),
  options: aliasClaimCheck(deps.store, teamId, alias, () => deps.clock.now()),
  taken: `A template with \`alias\` \`${alias}\` already exists.`,
});

export function claimTemplateAlias(deps: CommandDeps, teamId: string, alias: string, templateId: string, metadata: EventMetadata) {
  return claimValue(deps.store, templateAliasClaim(deps, teamId, alias), templateId, metadata);
}

export function releaseTemplateAlias(deps: CommandDeps, teamId: string, alias: string, templateId: string, metadata: EventMetadata) {
  return release(deps.store, templateAliasStream(teamId, alias), templateId, metadata);
}
