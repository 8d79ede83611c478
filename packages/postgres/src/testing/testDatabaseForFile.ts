import { afterAll, beforeAll } from "vitest";
import type { Database } from "../database.js";
import { createTestDatabase, type TestDatabase } from "../testDatabase.js";

/**
 * A database of the test file's own, created before its tests and dropped after them. Call it at the top of
 * the file (or of its one describe block); use it in tests and hooks, once it is there.
 */
export function testDatabaseForFile(options: Parameters<typeof createTestDatabase>[0] = {}): TestDatabase {
  let created: TestDatabase | undefined;
  beforeAll(async () => {
    created = await createTestDatabase(options);
  });
  afterAll(() => created?.dispose());
  const get = () => {
    if (!created) throw new Error("the file's test database is created in beforeAll: use it in a test or a hook");
    return created;
  };
  return {
    get url(): string {
      return get().url;
    },
    get database(): Database {
      return get().database;
    },
    reopen: () => get().reopen(),
    dispose: () => get().dispose(),
  };
}
