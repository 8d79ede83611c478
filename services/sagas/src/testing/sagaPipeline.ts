import { afterAll, beforeAll } from "vitest";
import { createLogger } from "@tidings/core";
import { startForwarder, type Bus, type Forwarder } from "@tidings/bus";
import { openTestBus } from "@tidings/bus/testing";
import type { EventStore } from "@tidings/eventstore";
import { holdableStore, testStoreDatabase, type HoldableStore } from "@tidings/eventstore/testing";
import { migrate, type Migration, type TestDatabase } from "@tidings/postgres";
import { createCheckpointWaiter, startProjections, type CheckpointWaiter, type Projection, type RunningProjections } from "@tidings/projections";
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
  readonly test: TestDatabase;
  readonly store: EventStore;
  readonly bus: Bus;
  readonly projections: RunningProjections;
  /** Hands the projections no new event until the returned release is called, or `readModelsAt` is. */
  holdProjections(): () => void;
  /**
   * The saga's wait for its read models. It first lets held projections go on: the saga asked for them to
   * catch up, as a busy projector would, so a test that holds them sees the saga wait rather than hang.
   */
  readModelsAt: ReadModelsAt;
}

/**
 * For the test file (or describe block) it is called in: a database of its own with the event store, the
 * timers' and the saga's tables, a bus of this mode (NATS on streams of the file's own, or the in-process
 * bus), the forwarder between them, and the given projections fed through a holdable store. Started in
 * `beforeAll` and stopped in `afterAll`; the saga itself is the test's to start in a `beforeAll` of its
 * own, and so to stop before this is.
 */
export function sagaPipelineForFile(options: SagaPipelineOptions): SagaPipeline {
  const file = testStoreDatabase();
  let bus: Bus | undefined;
  let forwarder: Forwarder | undefined;
  let held: HoldableStore | undefined;
  let projections: RunningProjections | undefined;
  let checkpoints: CheckpointWaiter | undefined;
  let waitForReadModels: ReadModelsAt | undefined;
  let release = () => {};
  beforeAll(async () => {
    const { test, store } = file;
    for (const [component, list] of Object.entries({ timers: timerMigrations, ...options.migrations })) await migrate(test.database, component, list);
    bus = await openTestBus(test.database);
    forwarder = await startForwarder({ store, bus, database: test.database });
    held = holdableStore(store);
    projections = await startProjections({ store: held.store, database: test.database, projections: options.projections, logger: createLogger("silent") });
    checkpoints = await createCheckpointWaiter(test.database, options.projections.map((p) => p.name));
    waitForReadModels = readModelsAt(checkpoints);
  });
  afterAll(async () => {
    release();
    await checkpoints?.close();
    await projections?.stop();
    await forwarder?.stop();
    await bus?.close();
  });
  const started = <T>(part: T | undefined): T => {
    if (part === undefined) throw new Error("the saga pipeline starts in beforeAll: use it in a test or a later hook");
    return part;
  };
  return {
    get test() {
      return file.test;
    },
    get store() {
      return file.store;
    },
    get bus() {
      return started(bus);
    },
    get projections() {
      return started(projections);
    },
    holdProjections: () => (release = started(held).hold()),
    readModelsAt: (names, position) => (release(), started(waitForReadModels)(names, position)),
  };
}
