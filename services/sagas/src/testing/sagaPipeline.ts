import { createLogger, StopOrder } from "@tidings/core";
import { startForwarder, type Bus } from "@tidings/bus";
import { openTestBus } from "@tidings/bus/testing";
import { createPostgresEventStore, eventStoreMigrations, type EventStore } from "@tidings/eventstore";
import { holdableStore } from "@tidings/eventstore/testing";
import { createTestDatabase, migrate, type Migration, type TestDatabase } from "@tidings/postgres";
import { createCheckpointWaiter, startProjections, type Projection, type RunningProjections } from "@tidings/projections";
import { readModelsAt, type ReadModelsAt } from "../readModelsAt.js";
import { timerMigrations } from "../timers/index.js";

export interface SagaPipelineOptions {
  /** Migrations of the saga's own tables, by component, beside the event store's and the timers'. */
  migrations?: Record<string, Migration[]>;
  /** The read models the saga looks things up in. */
  projections: Projection[];
}

/** What a saga runs on in a test: every event appended to `store` reaches `bus` through a forwarder. */
export interface SagaPipeline {
  test: TestDatabase;
  store: EventStore;
  bus: Bus;
  projections: RunningProjections;
  /** Hands the projections no new event until the returned release is called, or `readModelsAt` is. */
  holdProjections(): () => void;
  /**
   * The saga's wait for its read models. It first lets held projections go on: the saga asked for them to
   * catch up, as a busy projector would, so a test that holds them sees the saga wait rather than hang.
   */
  readModelsAt: ReadModelsAt;
  /** Stops all of it, the bus's test streams deleted, and drops the database. */
  stop(): Promise<void>;
}

/**
 * A test database with the event store, the timers' and the saga's tables, a bus of this mode (NATS or the
 * in-process bus), the forwarder between them, and the given projections fed through a holdable store.
 * The saga itself is the test's to start and stop, before `stop`.
 */
export async function startSagaPipeline(options: SagaPipelineOptions): Promise<SagaPipeline> {
  const logger = createLogger("silent");
  const parts = new StopOrder();
  const stop = () =>
    parts.stop((error) => {
      throw error;
    });
  try {
    const test = await createTestDatabase();
    parts.add("database", () => test.dispose());
    const migrations = { eventstore: eventStoreMigrations, timers: timerMigrations, ...options.migrations };
    for (const [component, list] of Object.entries(migrations)) await migrate(test.database, component, list);
    const store = createPostgresEventStore(test.database);
    parts.add("event store", () => store.close());
    const bus = await openTestBus(test.database);
    parts.add("bus", () => bus.close());
    const forwarder = await startForwarder({ store, bus, database: test.database });
    parts.add("forwarder", () => forwarder.stop());
    const feed = holdableStore(store);
    const projections = await startProjections({ store: feed.store, database: test.database, projections: options.projections, logger });
    parts.add("projections", () => projections.stop());
    const checkpoints = await createCheckpointWaiter(test.database, options.projections.map((p) => p.name));
    parts.add("checkpoint waiter", () => checkpoints.close());
    let release = () => {};
    parts.add("held projections", () => release());
    const waitForReadModels = readModelsAt(checkpoints);
    return {
      test,
      store,
      bus,
      projections,
      holdProjections: () => (release = feed.hold()),
      readModelsAt: (names, position) => (release(), waitForReadModels(names, position)),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
