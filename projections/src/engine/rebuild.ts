import type { Database } from "@tidings/postgres";
import type { EventStore, Position } from "@tidings/eventstore";
import { ensureCheckpointTable } from "./checkpoints.js";
import { readModelChecksum, type ReadModelChecksum } from "./checksum.js";
import { rebuildLock } from "./locks.js";
import { ProjectionUnavailableError } from "./projectionUnavailable.js";
import { recordFailure, recordOperation } from "./operationLog.js";
import type { Projection } from "./projection.js";
import { prepareShadow } from "./readModelVersions.js";
import { buildShadow, type RebuildProgress } from "./shadowBuild.js";

export interface RebuildOptions {
  store: EventStore;
  database: Database;
  projection: Projection;
  /** Events per transaction (default 5,000). */
  batchSize?: number;
  onProgress?: (progress: RebuildProgress) => void;
}

export interface RebuildResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  /** Where the rebuilt tables took over from the live ones. */
  position: Position;
  checksum: ReadModelChecksum;
}

/**
 * Rebuilds a projection from the first event into fresh tables, then switches readers to them (`tidings
 * projections rebuild`). The current tables keep serving meanwhile, and a runner may keep them live:
 * the switch waits until the build has caught up with it. Handlers only write rows, so the replay sends
 * nothing and calls nothing (docs/architecture.md §1). The outcome, success or failure, is recorded in
 * `projection_operations` for `tidings projections status`.
 */
export async function rebuildProjection(options: RebuildOptions): Promise<RebuildResult> {
  const { store, database, projection } = options;
  await ensureCheckpointTable(database);
  const lock = await database.tryLock(rebuildLock(projection.name));
  if (!lock) throw new ProjectionUnavailableError(`projection ${projection.name} is already being rebuilt by another process`);
  const startedAt = new Date();
  let events = 0;
  try {
    const from = await prepareShadow(database, projection);
    const build = await buildShadow({
      store,
      database,
      projection,
      from,
      batchSize: options.batchSize ?? 5_000,
      onProgress: (progress) => {
        events = progress.events;
        options.onProgress?.(progress);
      },
    });
    const checksum = await readModelChecksum(database, projection);
    await recordOperation(database, {
      name: projection.name,
      kind: "rebuild",
      outcome: "ok",
      startedAt,
      events: build.events,
      position: build.position,
      detail: { checksum: checksum.checksum },
    });
    return {
      events: build.events,
      seconds: build.seconds,
      eventsPerSecond: build.seconds > 0 ? build.events / build.seconds : 0,
      position: build.position,
      checksum,
    };
  } catch (error) {
    return recordFailure(database, { name: projection.name, kind: "rebuild", startedAt, events }, error);
  } finally {
    await lock.release();
  }
}
