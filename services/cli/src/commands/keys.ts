import { TidingsError, systemClock, type Config, type Logger } from "@tidings/core";
import { apiKeyPermissions, createTeamKey } from "@tidings/api";
import { operationMetadata } from "@tidings/commands";
import { openRuntime } from "../runtime.js";
import { UsageError } from "../usageError.js";

export interface KeysCreateOptions {
  team?: string | undefined;
  permission?: string | undefined;
  name?: string | undefined;
}

/**
 * `tidings keys create --team <name> [--permission full_access|sending_access] [--name <key name>]`: creates
 * the team on first use and a key of it, and prints the token on stdout, alone, for scripts to capture.
 * The key works once a projector has applied it: at once when `serve` runs, else at its next start.
 */
export async function keysCreate(config: Config, logger: Logger, options: KeysCreateOptions): Promise<void> {
  if (!options.team) throw new UsageError("keys create needs --team <name>");
  const permission = options.permission ?? "full_access";
  if (!(apiKeyPermissions as readonly string[]).includes(permission))
    throw new UsageError(`--permission must be one of ${apiKeyPermissions.join(", ")}`);
  const runtime = await openRuntime(config, logger);
  try {
    const key = await createTeamKey(
      { store: runtime.store, clock: systemClock },
      { team: options.team, permission, name: options.name ?? "cli" },
      operationMetadata("cli", systemClock),
    );
    process.stderr.write(`created API key ${key.id} (${permission}) for team "${options.team.trim()}" (${key.teamId})\n`);
    console.log(key.token);
  } catch (error) {
    if (error instanceof TidingsError) throw new UsageError(error.message);
    throw error;
  } finally {
    await runtime.close();
  }
}
