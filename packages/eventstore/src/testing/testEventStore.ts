import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, migrate, type TestDatabase } from "@tidings/postgres";
import { eventStoreMigrations } from "../postgres/migrations.js";
import { createPostgresEventStore } from "../postgres/postgresEventStore.js";
import type { EventStore } from "../port.js";

/**
 * The event store of a test file: PostgreSQL or PGlite as the test mode says, on a database of the file's
 * own, migrated in the file's `beforeAll` and dropped in its `afterAll` (this registers both). The store
 * returned stands for the one `beforeAll` opens, so tests use it as they would that one.
 */
export function testEventStore(): EventStore {
  let opened: { test: TestDatabase; store: EventStore } | undefined;
  beforeAll(async () => {
    const test = await createTestDatabase();
    await migrate(test.database, "eventstore", eventStoreMigrations);
    opened = { test, store: createPostgresEventStore(test.database) };
  });
  afterAll(async () => {
    await opened?.store.close();
    await opened?.test.dispose();
  });
  return new Proxy({} as EventStore, {
    get(_, method) {
      if (!opened) throw new Error("the test event store opens in beforeAll");
      const store = opened.store as unknown as Record<string | symbol, unknown>;
      const value = store[method];
      return typeof value === "function" ? value.bind(opened.store) : value;
    },
  });
}
