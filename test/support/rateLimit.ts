import { BOOTSTRAP_TEAM_NAME, teamIdForName } from "@tidings/api";
import { setTeamRateLimit } from "@tidings/cli";
import type { EventStore } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { createCheckpointWaiter, productProjections } from "@tidings/projections";

/**
 * What an operator's `tidings teams set-rate-limit default <n>` records, for tests whose sends and polls
 * would otherwise meet the bootstrap team's default of 10 requests per second. Resolves once the api
 * can see it (the limit is read from a read model).
 */
export function raiseBootstrapTeamRateLimit(stores: { store: EventStore; database: Database }, requestsPerSecond = 100_000): Promise<void> {
  return raiseTeamRateLimit(stores, teamIdForName(BOOTSTRAP_TEAM_NAME), requestsPerSecond);
}

/** The same for any team. */
export async function raiseTeamRateLimit(
  stores: { store: EventStore; database: Database },
  teamId: string,
  requestsPerSecond = 100_000,
): Promise<void> {
  const { position } = await setTeamRateLimit(stores.store, teamId, requestsPerSecond);
  if (!position) return;
  const waiter = await createCheckpointWaiter(
    stores.database,
    productProjections.map((p) => p.name),
  );
  try {
    if (!(await waiter.waitFor(position, 10_000))) throw new Error("the raised rate limit did not reach the read models in 10 s");
  } finally {
    await waiter.close();
  }
}
