import { TidingsError, systemClock } from "@tidings/core";
import { apiKeyPermissions, createTeamKey } from "@tidings/api";
import { operationMetadata } from "@tidings/commands";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";
import { UsageError } from "../usageError.js";

export interface KeysCreateOptions {
  team?: string | undefined;
  permission?: string | undefined;
  name?: string | undefined;
}

/**
 * `tidings keys create --team <name> [--permission full_access|sending_access] [--name <key name>]`: creates
 * the team on first use and a key of it, and prints the token on stdout, alone, for scripts to capture.
 * The key works once a projector has applied it: moments after the command when `serve` runs (longer on a
 * loaded machine: the command does not wait for it), else at its next start.
 */
export async function keysCreate(runtime: Runtime, options: KeysCreateOptions, out: CliOutput): Promise<number> {
  if (!options.team) throw new UsageError("keys create needs --team <name>");
  const permission = options.permission ?? "full_access";
  if (!(apiKeyPermissions as readonly string[]).includes(permission))
    throw new UsageError(`--permission must be one of ${apiKeyPermissions.join(", ")}`);
  try {
    const key = await createTeamKey(
      { store: runtime.store, clock: systemClock },
      { team: options.team, permission, name: options.name ?? "cli" },
      operationMetadata("cli", systemClock),
    );
    out.err(`created API key ${key.id} (${permission}) for team "${options.team.trim()}" (${key.teamId})`);
    out.out(key.token);
    return 0;
  } catch (error) {
    if (error instanceof TidingsError) throw new UsageError(error.message);
    throw error;
  }
}
