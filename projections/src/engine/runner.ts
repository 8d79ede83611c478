import { setMaxListeners } from "node:events";
import { setImmediate as yieldToEventLoop, setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@tidings/core";
import type { Database } from "@tidings/postgres";
import {
  formatPosition,
  subscriptionBatches,
  type EventStore,
  type Position,
  type RecordedEvent,
  type Subscription,
} from "@tidings/eventstore";
import { applyBatch, type BatchTarget } from "./applyBatch.js";
import { batchCommitter } from "./checkpointMoves.js";
import { createCheckpointWaiter, type CheckpointWaiter } from "./checkpointWaiter.js";
import { CheckpointMovedError, ensureCheckpointTable, readCheckpoints } from "./checkpoints.js";
import { LiveFeed } from "./liveFeed.js";
import { rebuildLock, runnerLock } from "./locks.js";
import { dataTypesOf, type Projection } from "./projection.js";
import { physicalTables } from "./readModelTables.js";
import { createLive, prepareShadow } from "./readModelVersions.js";
import { buildShadow, type RebuildProgress } from "./shadowBuild.js";

export interface StartProjectionsOptions {
  store: EventStore;
  database: Database;
  projections: Projection[];
  logger: Logger;
  /** Most events in one live batch (default 1,000). */
  batchSize?: number;
  /** Longest a live batch waits to fill after its first event (default 10 ms). */
  batchMs?: number;
  /** Events per transaction while rebuilding after a version bump (default 5,000). */
  rebuildBatchSize?: number;
  /** How often a standby instance tries to take over (default 2 s). */
  lockRetryMs?: number;
  /** Pause after a failed batch before trying it again (default 1 s). */
  retryMs?: number;
}

export interface ProjectionRunnerStatus {
  name: string;
  version: number;
  /** `leader` applies batches; `standby` waits for the leader's lock; `stopped` after stop(). */
  role: "leader" | "standby" | "stopped";
  /** `outdated`: a newer version is live, written by a newer build of Tidings; this one steps aside. */
  state: "starting" | "live" | "rebuilding" | "waiting" | "failed" | "outdated";
  checkpoint?: string;
  eventsApplied: number;
  lastError?: string;
  rebuild?: RebuildProgress;
}

export interface RunningProjections {
  /** Read-your-writes: resolves true once every projection here, or those named, has applied `position` (see CheckpointWaiter). */
  waitFor(position: Position, timeoutMs: number, projections?: readonly string[]): Promise<boolean>;
  status(): ProjectionRunnerStatus[];
  stop(): Promise<void>;
}

const PROGRESS_LOG_MS = 5_000;

/**
 * Runs each projection: one leader per projection across every process (an advisory lock; the others
 * stand by and take over when it goes), catching up from its checkpoint and following `$all` live, in
 * batches that each commit with their checkpoint; the projections led here from the same checkpoint
 * share one reading of `$all` (LiveFeed). A version bump is rebuilt first, while the previous
 * version's tables keep serving.
 */
export async function startProjections(options: StartProjectionsOptions): Promise<RunningProjections> {
  const { store, database, projections, logger } = options;
  const batchSize = options.batchSize ?? 1_000;
  const batchMs = options.batchMs ?? 10;
  const rebuildBatchSize = options.rebuildBatchSize ?? 5_000;
  const lockRetryMs = options.lockRetryMs ?? 2_000;
  const retryMs = options.retryMs ?? 1_000;

  await ensureCheckpointTable(database);
  const waiter: CheckpointWaiter = await createCheckpointWaiter(
    database,
    projections.map((p) => p.name),
  );
  const stopping = new AbortController();
  // Every projection's loop pauses on it at once when the database goes away: not a listener leak.
  setMaxListeners(projections.length + 1, stopping.signal);
  const subscriptions = new Set<Subscription>();
  const feed = new LiveFeed({ store, batchSize, batchMs, joinWindowMs: 100 });
  const commitTogether = batchCommitter(database);
  const statuses = new Map<string, ProjectionRunnerStatus>(
    projections.map((p) => [p.name, { name: p.name, version: p.version, role: "standby", state: "starting", eventsApplied: 0 }]),
  );

  const pause = (ms: number) => sleep(ms, undefined, { signal: stopping.signal }).catch(() => {});
  const stopped = () => stopping.signal.aborted;

  async function runLive(projection: Projection, from: Position, status: ProjectionRunnerStatus): Promise<void> {
    const target: BatchTarget = {
      projection,
      state: "live",
      version: projection.version,
      tables: physicalTables(projection, projection.version, false),
    };
    let position = from;
    const follow = async (batches: AsyncIterable<RecordedEvent[]>) => {
      for await (const batch of batches) {
        if (stopped()) return;
        position = await applyBatch(database, target, position, batch, commitTogether);
        status.eventsApplied += batch.length;
        status.checkpoint = formatPosition(position);
        waiter.observe(projection.name, position);
        // PGlite answers within microtasks: a long catch-up would otherwise starve timers and sockets.
        await yieldToEventLoop();
      }
    };
    const shared = feed.join(from);
    if (shared) return follow(shared);
    // Unfiltered on purpose: the checkpoint must pass every event, so a wait on any position resolves.
    const subscription = store.subscribeToAll({ after: from, dataTypes: dataTypesOf(projection) });
    subscriptions.add(subscription);
    // A stop that began before this subscription existed did not reach it, and with no event coming it
    // would wait for ever: a projection that went live just as the runner stopped held the stop up.
    if (stopped()) await subscription.stop();
    try {
      await follow(subscriptionBatches(subscription, batchSize, batchMs));
    } finally {
      subscriptions.delete(subscription);
      await subscription.stop();
    }
  }

  async function rebuild(projection: Projection, resumeFrom: Position | undefined, status: ProjectionRunnerStatus): Promise<void> {
    const lock = await database.tryLock(rebuildLock(projection.name));
    if (!lock) {
      status.state = "waiting";
      await pause(lockRetryMs);
      return;
    }
    try {
      status.state = "rebuilding";
      const from = resumeFrom ?? (await prepareShadow(database, projection));
      logger.info({ projection: projection.name, version: projection.version, from: formatPosition(from) }, "projection rebuild started");
      let logged = Date.now();
      const result = await buildShadow({
        store,
        database,
        projection,
        from,
        batchSize: rebuildBatchSize,
        shouldStop: stopped,
        onProgress(progress) {
          status.rebuild = progress;
          if (Date.now() - logged < PROGRESS_LOG_MS) return;
          logged = Date.now();
          logger.info(progress, "projection rebuild progress");
        },
      });
      if (result.outcome === "switched") {
        logger.info(
          { projection: projection.name, version: projection.version, events: result.events, seconds: result.seconds },
          "projection rebuilt and switched",
        );
        delete status.rebuild;
      }
    } finally {
      await lock.release();
    }
  }

  /** Runs one projection while this instance holds its lock. */
  async function lead(projection: Projection, status: ProjectionRunnerStatus): Promise<void> {
    while (!stopped()) {
      const checkpoints = await readCheckpoints(database.db, [projection.name]);
      const live = checkpoints.find((c) => c.state === "live");
      const building = checkpoints.find((c) => c.state === "rebuilding");
      try {
        if (!live) {
          await createLive(database, projection);
        } else if (live.version > projection.version) {
          status.state = "outdated";
          logger.error(
            { projection: projection.name, version: projection.version, live: live.version },
            "a newer version of this projection is live; not running it",
          );
          return;
        } else if (live.version < projection.version) {
          await rebuild(projection, building?.version === projection.version ? building.position : undefined, status);
        } else {
          status.state = "live";
          status.checkpoint = formatPosition(live.position);
          waiter.observe(projection.name, live.position);
          await runLive(projection, live.position, status);
        }
      } catch (error) {
        if (!(error instanceof CheckpointMovedError)) throw error;
        logger.info({ projection: projection.name }, "projection checkpoint moved; resuming from it");
      }
    }
  }

  async function run(projection: Projection): Promise<void> {
    const status = statuses.get(projection.name)!;
    while (!stopped()) {
      const lock = await database.tryLock(runnerLock(projection.name)).catch((error: unknown) => {
        status.lastError = String(error);
        return undefined;
      });
      if (!lock) {
        status.role = "standby";
        await pause(lockRetryMs);
        continue;
      }
      status.role = "leader";
      try {
        await lead(projection, status);
        if (status.state === "outdated") await pause(lockRetryMs);
      } catch (error) {
        status.state = "failed";
        status.lastError = error instanceof Error ? error.message : String(error);
        logger.error({ err: error, projection: projection.name }, "projection batch failed; retrying from its checkpoint");
        await pause(retryMs);
      } finally {
        await lock.release().catch(() => {});
        status.role = "standby";
      }
    }
  }

  const running = projections.map((p) => run(p));

  return {
    waitFor: (position, timeoutMs, projections) => waiter.waitFor(position, timeoutMs, projections),
    status: () => [...statuses.values()].map((s) => ({ ...s })),
    async stop() {
      if (stopped()) return;
      stopping.abort();
      await Promise.all([feed.stop(), ...[...subscriptions].map((s) => s.stop())]);
      await Promise.all(running);
      for (const status of statuses.values()) status.role = "stopped";
      await waiter.close();
    },
  };
}
