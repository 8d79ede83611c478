import { embeddedSecret, lockDataDir, noMetrics, type Config, type DataDir, type Logger, type Metrics } from "@tidings/core";
import { migrate, openDatabase, type Database } from "@tidings/postgres";
import {
  createPostgresEventStore,
  eventStoreMigrations,
  instrumentEventStore,
  openEventStore,
  traceEventStore,
  type EventStore,
} from "@tidings/eventstore";
import { createInProcessBus, createNatsBus, traceBus, type Bus } from "@tidings/bus";
import { contentRetentionOf, createOpeningBus, createPrivacy, type Privacy } from "@tidings/privacy";
import { join } from "node:path";

/**
 * The stores one Tidings process works with, chosen by configuration (docs/architecture.md §2): embedded mode puts
 * the event store, the read models and the bus in one PGlite under DATA_DIR; server mode uses
 * PostgreSQL or EventStoreDB for events, PostgreSQL for read models, and NATS when NATS_URL is set.
 */
export interface Runtime {
  config: Config;
  /** Embedded mode: the locked DATA_DIR, where a serving process also takes CLI commands (adminChannel.ts). */
  dataDir?: string;
  secret: string;
  /** The event store as readers and writers use it: personal values sealed on the way in, opened on the way out (docs/privacy.md). */
  store: EventStore;
  /** The events as stored, sealed and hashed: for the integrity commands and the forwarder, never for a decision. */
  storedEvents: EventStore;
  /** The data keys and the subject hasher, for erasure and retention. */
  privacy: Privacy;
  /** The read-model database (also the event store's in embedded and Postgres-only modes). */
  database: Database;
  /** The bus as sagas consume it: the forwarder publishes sealed events, and a handler gets them opened. */
  bus: Bus;
  readiness: Record<string, () => Promise<void>>;
  /** What this process records into: served on METRICS_PORT by `serve`, the no-op for every other command. */
  metrics: Metrics;
  close(): Promise<void>;
}

export async function openRuntime(config: Config, logger: Logger, metrics: Metrics = noMetrics): Promise<Runtime> {
  const closers: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c();
  };
  try {
    let dataDir: DataDir | undefined;
    let secret = config.TIDINGS_SECRET;
    let database: Database;
    let store: EventStore;
    if (config.mode === "embedded") {
      dataDir = lockDataDir(config.DATA_DIR);
      closers.push(() => dataDir?.release());
      secret ??= embeddedSecret(dataDir.path);
      database = await openDatabase({ url: join(dataDir.path, "pglite") });
      closers.push(() => database.close());
      await migrate(database, "eventstore", eventStoreMigrations);
      store = createPostgresEventStore(database);
      closers.push(() => store.close());
    } else {
      database = await openDatabase({ url: config.DATABASE_URL!, preparedStatements: config.DATABASE_PREPARED_STATEMENTS });
      closers.push(() => database.close());
      const opened = await openEventStore(config.EVENTSTORE_URL!, { preparedStatements: config.DATABASE_PREPARED_STATEMENTS });
      store = opened.store;
      closers.push(() => opened.close());
    }
    store = traceEventStore(instrumentEventStore(store, metrics));
    const privacy = await createPrivacy(database, secret!, { retention: contentRetentionOf(config) });
    let bus: Bus;
    if (config.NATS_URL) {
      const prefix = config.NATS_PREFIX;
      bus = await createNatsBus({
        servers: config.NATS_URL,
        logger,
        retryBackoffMs: config.BUS_RETRY_BACKOFF_MS,
        ...(prefix ? { subjectPrefix: `${prefix}.`, eventsStream: `${prefix}_EVENTS`, deadLetterStream: `${prefix}_DEADLETTER` } : {}),
      });
    } else {
      bus = await createInProcessBus(database, { logger, retryBackoffMs: config.BUS_RETRY_BACKOFF_MS });
    }
    closers.push(() => bus.close());
    bus = createOpeningBus(traceBus(bus, config.NATS_URL ? "nats" : "database"), privacy.keyring);
    logger.debug({ mode: config.mode, eventStore: config.eventStoreKind, bus: config.NATS_URL ? "nats" : "database" }, "runtime open");
    return {
      config,
      ...(dataDir ? { dataDir: dataDir.path } : {}),
      secret: secret!,
      store: privacy.sealing(store),
      storedEvents: store,
      privacy,
      database,
      bus,
      readiness: {
        eventstore: async () => void (await store.headPosition()),
        database: async () => void (await database.exec("SELECT 1")),
        bus: async () => void (await bus.deadLetters("readiness", 1)),
      },
      metrics,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
