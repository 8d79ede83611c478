import { createLogger, loadConfig, systemClock, type Config } from "@tidings/core";
import { createTestDatabase, migrate, type Database, type TestDatabase } from "@tidings/postgres";
import { createPrivacy } from "@tidings/privacy";
import { createPostgresEventStore, eventStoreMigrations, type EventStore } from "@tidings/eventstore";
import { holdableStore } from "@tidings/eventstore/testing";
import { createCheckpointWaiter, productProjections, startProjections, type RunningProjections } from "@tidings/projections";
import { teamDecider, teamStream, type ApiKeyPermission } from "@tidings/domain";
import { handleCommand } from "@tidings/commands";
import { buildApp, type ApiDeps, type ApiInstance } from "../app.js";
import { createTeamKey } from "../handlers/createTeamKey.js";
import { createApiServices, type ApiServices } from "../services.js";
import { capturingLogger } from "./capturingLogger.js";

export interface TestKey {
  id: string;
  token: string;
  teamId: string;
  /** `{ authorization: "Bearer …" }`, for `app.inject`. */
  headers: { authorization: string };
}

export interface TestServices {
  test: TestDatabase;
  /** The store as the api uses it: personal values sealed and opened (docs/privacy.md). */
  store: EventStore;
  /** The events as stored, sealed: what a test reads to see what the store keeps. */
  storedEvents: EventStore;
  services: ApiServices;
  projections: RunningProjections;
  /**
   * Holds the projections back: they are handed no new event until the returned release is called, so
   * the read models stay behind the writes made meanwhile.
   */
  holdProjections(): () => void;
  /** The real app over these services, closed by `dispose`. */
  app(extra?: Partial<ApiDeps>): Promise<ApiInstance>;
  /** Another api instance on the same database: a handle, a checkpoint waiter and an app of its own. */
  anotherInstance(extra?: Partial<ApiDeps>): Promise<ApiInstance>;
  /**
   * A team by name (created on first use) and a key of it, through the same handlers the API uses. The
   * team's rate limit is raised to `rateLimit` (default 100,000/s), so that only tests about the limit meet it.
   */
  aKey(team: string, options?: { permission?: ApiKeyPermission; domainId?: string; name?: string; rateLimit?: number }): Promise<TestKey>;
  dispose(): Promise<void>;
}

/** Seals the DKIM keys of domains created in tests when the config brings no TIDINGS_SECRET. */
export const testSecret = "tidings-test-secret-0123456789abcdef";

const quiet = createLogger(process.env.TIDINGS_TEST_LOG ?? "silent");

/**
 * The settings tests run the api on: the product's defaults, but a write waits up to the longest
 * READ_YOUR_WRITES_TIMEOUT_MS for its projections. Tests read right after they write, and on a loaded
 * machine the projector can be more than the default 2 s behind, when a read would see the write missing
 * (once more than 10 s, in a CI run beside other work).
 */
export const testApiSettings = { READ_YOUR_WRITES_TIMEOUT_MS: "60000" };

/**
 * What `tidings serve` runs, on the test file's own database (PGlite or PostgreSQL, per TIDINGS_TEST_MODE):
 * the event store, the product projections and the api's services. Share one per test file: a PGlite
 * costs seconds and hundreds of MB.
 */
export async function createTestServices(config: Config = loadConfig(testApiSettings)): Promise<TestServices> {
  const test = await createTestDatabase();
  await migrate(test.database, "eventstore", eventStoreMigrations);
  const storedEvents = createPostgresEventStore(test.database, { pollIntervalMs: 50 });
  const secret = config.TIDINGS_SECRET ?? testSecret;
  const privacy = await createPrivacy(test.database, secret);
  const store = privacy.sealing(storedEvents);
  const { keys } = privacy;
  const projectorFeed = holdableStore(store);
  const projections = await startProjections({
    store: projectorFeed.store,
    database: test.database,
    projections: productProjections,
    logger: quiet,
    lockRetryMs: 200,
  });
  const services = createApiServices({
    store,
    keys,
    database: test.database,
    config,
    secret,
    clock: systemClock,
    waitFor: projections.waitFor,
  });
  const closers: (() => Promise<unknown>)[] = [];

  const app = async (over: ApiServices, extra: Partial<ApiDeps> = {}) => {
    const built = buildApp({ logger: capturingLogger("warn").logger, readiness: {}, services: over, ...extra });
    closers.push(() => built.close());
    await built.ready();
    return built;
  };

  return {
    test,
    store,
    storedEvents,
    services,
    projections,
    holdProjections: projectorFeed.hold,
    app: (extra) => app(services, extra),
    async anotherInstance(extra) {
      const database: Database = test.database.kind === "postgres" ? await test.reopen() : test.database;
      const waiter = await createCheckpointWaiter(
        database,
        productProjections.map((p) => p.name),
      );
      closers.push(() => waiter.close());
      return app(createApiServices({ store, keys, database, config, secret, clock: systemClock, waitFor: waiter.waitFor }), extra);
    },
    async aKey(team, options = {}) {
      const key = await createTeamKey(
        services,
        { team, name: options.name ?? `${team} key`, permission: options.permission ?? "full_access", domainId: options.domainId ?? null },
        { actor: "cli" },
      );
      const limited = await handleCommand({
        store,
        streamId: teamStream(key.teamId),
        decider: teamDecider,
        command: { type: "SetTeamRateLimit", teamId: key.teamId, requestsPerSecond: options.rateLimit ?? 100_000 },
        metadata: { actor: "cli", teamId: key.teamId },
      });
      // Until the key can sign in: services.waitFor gives up after READ_YOUR_WRITES_TIMEOUT_MS, and on a loaded
      // machine the projections were once further behind, so a test's first call met a 401.
      const last = limited.position ?? key.position;
      if (last && !(await projections.waitFor(last, 120_000))) throw new Error(`the projections did not apply ${team}'s key within 120 s`);
      return { id: key.id, token: key.token, teamId: key.teamId, headers: { authorization: `Bearer ${key.token}` } };
    },
    async dispose() {
      for (const close of closers.splice(0).reverse()) await close();
      await projections.stop();
      await store.close();
      await test.dispose();
    },
  };
}
