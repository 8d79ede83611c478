import { createTestDatabase, migrate, testMode } from "@tidings/postgres";
import { eventStoreContract, type EventStoreFixture } from "../contract.js";
import { createPostgresEventStore } from "./postgresEventStore.js";
import { eventStoreMigrations } from "./migrations.js";

export async function postgresFixture(): Promise<EventStoreFixture> {
  const test = await createTestDatabase({ persistent: true });
  await migrate(test.database, "eventstore", eventStoreMigrations);
  let store = createPostgresEventStore(test.database, { ownsDatabase: true });
  return {
    get store() {
      return store;
    },
    url: test.url,
    async reopen() {
      await store.close();
      store = createPostgresEventStore(await test.reopen(), { ownsDatabase: true });
      return store;
    },
    async dispose() {
      await store.close();
      await test.dispose();
    },
  };
}

eventStoreContract(testMode() === "server" ? "PostgreSQL" : "PGlite", postgresFixture);
