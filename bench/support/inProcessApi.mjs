import { createLogger, loadConfig, systemClock } from "@tidings/core";
import { buildApp, createApiServices, createTeamKey } from "@tidings/api";
import { openRuntime } from "@tidings/cli";
import { handleCommand } from "@tidings/commands";
import { teamDecider, teamStream } from "@tidings/domain";
import { migrate } from "@tidings/postgres";
import { checkpointMigrations, createCheckpointWaiter, productProjections, startProjections } from "@tidings/projections";
import { withScratchDatabase } from "./scratchDatabase.mjs";

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

/**
 * The whole app (`buildApp`: API and dashboard) on a loopback port, over a throw-away PostgreSQL database named
 * for `label`, with a `benchKey` and its team's `domainNames` created through the API: `body` gets the base
 * URL, the key, its request headers, the domains `{ id, name }`, the database handle and the list of stops.
 */
export async function withServedTeam(label, domainNames, body) {
  return withScratchDatabase(label, (url) =>
    withInProcessApi(
      { EVENTSTORE_URL: url, TIDINGS_SECRET: "b".repeat(40), LOG_LEVEL: "warn" },
      async ({ logger, runtime, services, stops }) => {
        const app = buildApp({ logger, services, readiness: runtime.readiness });
        await app.listen({ port: 0, host: "127.0.0.1" });
        stops.push(() => app.close());
        const key = await benchKey(services, runtime.store);
        const headers = { Authorization: `Bearer ${key.token}`, "Content-Type": "application/json" };
        const base = `http://127.0.0.1:${app.server.address().port}`;
        const domains = [];
        for (const name of domainNames) {
          const res = await fetch(`${base}/domains`, { method: "POST", headers, body: JSON.stringify({ name }) });
          domains.push({ id: (await res.json()).id, name });
        }
        return body({ base, key, headers, domains, db: runtime.database.db, stops });
      },
    ),
  );
}
