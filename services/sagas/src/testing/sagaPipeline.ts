import { afterAll, beforeAll } from "vitest";
import { startForwarder, type Bus, type Forwarder } from "@tidings/bus";
import { openTestBus } from "@tidings/bus/testing";
import type { EventStore } from "@tidings/eventstore";
import { testStoreDatabase } from "@tidings/eventstore/testing";
import { migrate, type Migration, type TestDatabase } from "@tidings/postgres";
import type { Projection } from "@tidings/projections";
import { timerMigrations } from "../timers/index.js";
import { heldReadModelsForFile, type HeldReadModels } from "./heldReadModels.js";

export interface SagaPipelineOptions {
  /** Migrations of the saga's own tables, by component, beside the event store's and the timers'. */
  migrations?: Record<string, Migration[]>;
  /** The read models the saga looks things up in. */
  projections: Projection[];
}

/** What a saga runs on in a test: every event appended to `store` reaches `bus` through a forwarder. */
export interface SagaPipeline {
  /** Set in `beforeAll`. */
  test: TestDatabase;
  store: EventStore;
  bus: Bus;
  readModels: HeldReadModels;
}

/**
 * For the test file (or describe block) it is called in: a database of its own with the event store, the
 * timers' and the saga's tables, a bus of this mode (NATS on streams of the file's own, or the in-process
 * bus), the forwarder between them, and the given projections, which the test can hold. Started in
 * `beforeAll` and stopped in `afterAll`; the saga itself is the test's to start in a `beforeAll` of its
 * own, and so to stop before this is.
 */
export function sagaPipelineForFile(options: SagaPipelineOptions): SagaPipeline {
  const file = testStoreDatabase();
  const pipeline = {} as SagaPipeline;
  let forwarder: Forwarder | undefined;
  beforeAll(async () => {
    pipeline.test = file.test;
    pipeline.store = file.store;
    for (const [component, list] of Object.entries({ timers: timerMigrations, ...options.migrations }))
      await migrate(file.test.database, component, list);
    pipeline.bus = await openTestBus(file.test.database);
    forwarder = await startForwarder({ store: file.store, bus: pipeline.bus, database: file.test.database });
  });
  afterAll(async () => {
    await forwarder?.stop();
    await pipeline.bus?.close();
  });
  // Registered last, so that the projections start after the forwarder and stop before it.
  pipeline.readModels = heldReadModelsForFile(file, options.projections);
  return pipeline;
}
