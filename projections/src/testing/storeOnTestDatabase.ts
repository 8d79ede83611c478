import { expect } from "vitest";
import type { Database, TestDatabase } from "@tidings/postgres";
import type { EventStore, Position } from "@tidings/eventstore";
import { testStoreDatabase } from "@tidings/eventstore/testing";
import type { Projection } from "../engine/projection.js";
import { startProjections, type RunningProjections, type StartProjectionsOptions } from "../engine/runner.js";
import { appendEvents, countedType, quietLogger, testStoreOptions } from "./testBuilders.js";

/** What the tests of one file share: a test database of their own, an event store on it, and the runner. */
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

/** The test database and event store of a projection test file, opened before its tests and closed after them. */
export function storeOnTestDatabase(): StoreOnTestDatabase {
  const file = testStoreDatabase(testStoreOptions);
  const shared: StoreOnTestDatabase = {
    get test() {
      return file.test;
    },
    get database() {
      return file.test.database;
    },
    get store() {
      return file.store;
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
