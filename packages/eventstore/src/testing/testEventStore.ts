import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, migrate, type TestDatabase } from "@tidings/postgres";
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
 * The event store of a test file with its database: PostgreSQL or PGlite as the test mode says, on a
 * database of the file's own, migrated in the file's `beforeAll` and dropped in its `afterAll` (this
 * registers both).
 */
export function testStoreDatabase(options: PostgresEventStoreOptions = {}): TestStoreDatabase {
  let opened: { test: TestDatabase; store: EventStore } | undefined;
  beforeAll(async () => {
    const test = await createTestDatabase();
    await migrate(test.database, "eventstore", eventStoreMigrations);
    opened = { test, store: createPostgresEventStore(test.database, options) };
  });
  afterAll(async () => {
    await opened?.store.close();
    await opened?.test.dispose();
  });
  const open = () => {
    if (!opened) throw new Error("the test event store opens in beforeAll");
    return opened;
  };
  return {
    get test() {
      return open().test;
    },
    get store() {
      return open().store;
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
