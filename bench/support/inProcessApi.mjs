import { createLogger, loadConfig, systemClock } from "@tidings/core";
import { createApiServices, createTeamKey } from "@tidings/api";
import { openRuntime } from "@tidings/cli";
import { handleCommand } from "@tidings/commands";
import { teamDecider, teamStream } from "@tidings/domain";
import { migrate } from "@tidings/postgres";
import { checkpointMigrations, createCheckpointWaiter, productProjections, startProjections } from "@tidings/projections";

/**
 * The api's services in this process on `settings`' stores, with the product projections running, as
 * `tidings serve` has them: `body` gets them and a list of stops (what it starts too), run in reverse after it.
 */
export async function withInProcessApi(settings, body) {
  const config = loadConfig(settings);
  const logger = createLogger(config.LOG_LEVEL);
  const runtime = await openRuntime(config, logger);
  const stops = [() => runtime.close()];
  try {
    await migrate(runtime.database, "projections", checkpointMigrations);
    const projections = await startProjections({
      store: runtime.store,
      database: runtime.database,
      projections: productProjections,
      logger,
    });
    stops.push(() => projections.stop());
    const waiter = await createCheckpointWaiter(
      runtime.database,
      productProjections.map((p) => p.name),
    );
    stops.push(() => waiter.close());
    const services = createApiServices({
      store: runtime.store,
      database: runtime.database,
      config,
      waitFor: waiter.waitFor,
      clock: systemClock,
    });
    return await body({ config, logger, runtime, services, stops });
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

/** A full-access key of a new team `bench`, whose rate limit is lifted out of the way of a load. */
export async function benchKey(services, store) {
  const key = await createTeamKey(services, { team: "bench", name: "bench", permission: "full_access", domainId: null }, { actor: "cli" });
  const limit = await handleCommand({
    store,
    streamId: teamStream(key.teamId),
    decider: teamDecider,
    command: { type: "SetTeamRateLimit", teamId: key.teamId, requestsPerSecond: 10_000_000 },
    metadata: { actor: "cli", teamId: key.teamId },
  });
  await services.waitFor(limit.position);
  return key;
}
