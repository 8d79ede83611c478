import { createTeamKey } from "@tidings/api";
import { systemClock } from "@tidings/core";
import type { EventStore } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { raiseTeamRateLimit } from "./rateLimit.js";

/**
 * A full-access token of another team, made the way `tidings keys create --team <name>` makes it, for
 * tests that need two teams. Resolves once the api can authenticate it.
 */
export async function aTeamKey(stores: { store: EventStore; database: Database }, team: string): Promise<string> {
  const key = await createTeamKey(
    { store: stores.store, clock: systemClock },
    { team, name: `${team} key`, permission: "full_access" },
    { actor: "cli" },
  );
  // Waiting for the raised limit, appended after the key, waits for the key too.
  await raiseTeamRateLimit(stores, key.teamId);
  return key.token;
}
