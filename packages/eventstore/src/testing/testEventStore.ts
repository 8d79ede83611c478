import { afterAll, beforeAll } from "vitest";
import { migrate, type TestDatabase } from "@tidings/postgres";
import { testDatabaseForFile } from "@tidings/postgres/testing";
import { eventStoreMigrations } from "../postgres/migrations.js";
import { createPostgresEventStore, type PostgresEventStoreOptions } from "../postgres/postgresEventStore.js";
import type { EventStore } from "../port.js";

/** A test file's database and the event store on it; both are there from the file's `beforeAll` on. */
export interface TestStoreDatabase {
  /** The database, for what a test reads beside the store (read models, checkpoints) or opens again. */
  readonly test: TestDatabase;
  readonly store: EventStore;
}

/**
 * The event store of a test file with its database: PostgreSQL or PGlite as the test mode says, on the
 * file's own database (`testDatabaseForFile`), migrated in the file's `beforeAll` and closed in its
 * `afterAll`, before the database is dropped (this registers both).
 */
export function testStoreDatabase(options: PostgresEventStoreOptions = {}): TestStoreDatabase {
  const test = testDatabaseForFile();
  let store: EventStore | undefined;
  beforeAll(async () => {
    await migrate(test.database, "eventstore", eventStoreMigrations);
    store = createPostgresEventStore(test.database, options);
  });
  afterAll(() => store?.close());
  return {
    test,
    get store() {
      if (!store) throw new Error("the test event store opens in beforeAll");
      return store;
    },
  };
}

/**
 * The event store of a test file (`testStoreDatabase`) for tests that need nothing else. The store
 * returned stands for the one `beforeAll` opens, so tests use it as they would that one.
 */
export function testEventStore(): EventStore {
  const file = testStoreDatabase();
  return new Proxy({} as EventStore, {
    get(_, method) {
      const store = file.store as unknown as Record<string | symbol, unknown>;
      const value = store[method];
      return typeof value === "function" ? value.bind(file.store) : value;
    },
  });
}
