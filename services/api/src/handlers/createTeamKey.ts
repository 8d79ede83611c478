import { TidingsError, type Clock } from "@tidings/core";
import { apiKeyPermissions, type ApiKeyPermission } from "@tidings/domain";
import { DomainRejection } from "@tidings/commands";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { createApiKey } from "./createApiKey.js";
import { ensureTeam } from "./ensureTeam.js";

export interface TeamKeyInput {
  /** The team's name; the team is created on first use. */
  team: string;
  /** Checked here: it comes from a command line, not from a schema. */
  permission: string;
  name: string;
  domainId?: string | null;
}

export interface CreatedTeamKey {
  teamId: string;
  id: string;
  token: string;
  position?: Position;
}

/** Team names are 1 to 100 characters (the TeamCreated event's schema). */
const TEAM_NAME_MAX = 100;

/**
 * A key for a team named by the operator (`tidings keys create --team <name>`). Every refusal is a
 * TidingsError carrying the contract's code and a message fit to print.
 */
export async function createTeamKey(
  deps: { store: EventStore; clock: Clock },
  input: TeamKeyInput,
  metadata: EventMetadata,
): Promise<CreatedTeamKey> {
  const team = input.team.trim();
  if (team.length === 0 || team.length > TEAM_NAME_MAX)
    throw new TidingsError("validation_error", `The team name must be 1 to ${TEAM_NAME_MAX} characters.`);
  if (!apiKeyPermissions.includes(input.permission as ApiKeyPermission)) {
    throw new TidingsError("invalid_access", `The permission must be one of ${apiKeyPermissions.join(", ")}.`);
  }
  try {
    const { teamId } = await ensureTeam(deps, team, metadata);
    const key = await createApiKey(
      deps,
      { teamId, name: input.name, permission: input.permission as ApiKeyPermission, domainId: input.domainId ?? null },
      { ...metadata, teamId },
    );
    return { teamId, ...key };
  } catch (error) {
    if (error instanceof DomainRejection) throw new TidingsError(error.error.name, error.error.message);
    throw error;
  }
}
