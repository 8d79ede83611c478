import { afterAll, beforeAll, expect } from "vitest";
import { createTestDatabase, type Database, type TestDatabase } from "@tidings/postgres";
import type { EventStore, Position } from "@tidings/eventstore";
import type { Projection } from "../engine/projection.js";
import { startProjections, type RunningProjections, type StartProjectionsOptions } from "../engine/runner.js";
import { anEventStore, appendEvents, countedType, quietLogger } from "./testBuilders.js";

/** What the tests of one file share: a test database of their own and an event store on it. */
export interface StoreOnTestDatabase {
  readonly test: TestDatabase;
  readonly database: Database;
  readonly store: EventStore;
  /** The runner on this store and database, quiet unless TIDINGS_TEST_LOG asks. */
  start(projections: Projection[], options?: Partial<StartProjectionsOptions>): Promise<RunningProjections>;
  /**
   * Appends `perStream` events counted by the counting projection `name` to each of `streams` new streams,
   * and expects `running` to have projected them within 15 s. Returns the last one's position.
   */
  appendProjected(running: RunningProjections, name: string, streams: number, perStream: number): Promise<Position>;
}

/**
 * Opens a test database with an event store before the file's tests and closes both after them. Called at
 * the top of a test file; its fields are there from `beforeAll` on, for the tests and what they call.
 */
export function storeOnTestDatabase(): StoreOnTestDatabase {
  let test: TestDatabase | undefined;
  let store: EventStore | undefined;
  beforeAll(async () => {
    test = await createTestDatabase();
    store = await anEventStore(test.database);
  });
  afterAll(async () => {
    await store?.close();
    await test?.dispose();
  });
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the test database is opened in beforeAll: read it from a test or a hook");
    return value;
  };
  const shared: StoreOnTestDatabase = {
    get test() {
      return opened(test);
    },
    get database() {
      return opened(test).database;
    },
    get store() {
      return opened(store);
    },
    start: (projections, options = {}) =>
      startProjections({ store: shared.store, database: shared.database, projections, logger: quietLogger, ...options }),
    async appendProjected(running, name, streams, perStream) {
      const head = await appendEvents(shared.store, countedType(name), streams, perStream);
      expect(await running.waitFor(head, 15_000)).toBe(true);
      return head;
    },
  };
  return shared;
}
