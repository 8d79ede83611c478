import { afterAll, beforeAll } from "vitest";
import { createLogger } from "@tidings/core";
import { holdableStore, type TestStoreDatabase } from "@tidings/eventstore/testing";
import {
  createCheckpointWaiter,
  startProjections,
  type CheckpointWaiter,
  type Projection,
  type RunningProjections,
} from "@tidings/projections";
import { readModelsAt, type ReadModelsAt } from "../readModelsAt.js";

/** Read models a saga looks things up in, which a test can hold behind the writes. */
export interface HeldReadModels {
  /** Set in `beforeAll`. */
  projections: RunningProjections;
  /** Hands the projections no new event until the returned release is called, or `readModelsAt` is. */
  holdProjections(): () => void;
  /**
   * The saga's wait for its read models. It first lets held projections go on: the saga asked for them to
   * catch up, as a busy projector would, so a test that holds them sees the saga wait rather than hang.
   */
  readModelsAt: ReadModelsAt;
}

/**
 * The given projections on the file's store database, fed through a holdable store, for the test file (or
 * describe block) it is called in: started in `beforeAll`, stopped in `afterAll`.
 */
export function heldReadModelsForFile(file: TestStoreDatabase, projections: Projection[]): HeldReadModels {
  let hold: (() => () => void) | undefined;
  let release = () => {};
  let checkpoints: CheckpointWaiter | undefined;
  let waitForReadModels: ReadModelsAt | undefined;
  const models = {
    holdProjections: () => (release = hold!()),
    readModelsAt: (names, position) => (release(), waitForReadModels!(names, position)),
  } as HeldReadModels;
  beforeAll(async () => {
    const feed = holdableStore(file.store);
    hold = feed.hold;
    models.projections = await startProjections({
      store: feed.store,
      database: file.test.database,
      projections,
      logger: createLogger("silent"),
    });
    checkpoints = await createCheckpointWaiter(
      file.test.database,
      projections.map((p) => p.name),
    );
    waitForReadModels = readModelsAt(checkpoints);
  });
  afterAll(async () => {
    release();
    await checkpoints?.close();
    await models.projections?.stop();
  });
  return models;
}
