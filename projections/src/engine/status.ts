import type { Database } from "@tidings/postgres";
import { formatPosition, measureLag, type EventStore } from "@tidings/eventstore";
import { ensureCheckpointTable, readCheckpoints } from "./checkpoints.js";
import { rebuildLock, runnerLock } from "./locks.js";
import { lastOperations, type ProjectionOperation } from "./operationLog.js";
import type { Projection } from "./projection.js";

export interface ProjectionStatus {
  name: string;
  /** The version this build of Tidings declares. */
  version: number;
  /** The version readers see; undefined before the projection first ran. */
  liveVersion: number | undefined;
  /**
   * `rebuilding`: some process holds the rebuild lock; `live`: some process runs the projection;
   * `stopped`: nobody does, so the checkpoint stands still.
   */
  state: "live" | "rebuilding" | "stopped";
  checkpoint: string | undefined;
  updatedAt: Date | undefined;
  /** Events after the checkpoint, counted up to `lagCap`. */
  lagEvents: number;
  /** True when there are `lagCap` or more. */
  lagCapped: boolean;
  /** Age of the oldest event not yet applied; 0 when caught up. */
  lagSeconds: number;
  /** An unfinished build of shadow tables: its version, checkpoint and progress (0…1). */
  rebuild: { version: number; checkpoint: string; fraction: number } | undefined;
  /** The latest `tidings projections rebuild` and `verify` of it, from `projection_operations`. */
  lastRebuild: ProjectionOperation | undefined;
  lastVerify: ProjectionOperation | undefined;
}

export interface ProjectionStatusOptions {
  store: EventStore;
  database: Database;
  projections: Projection[];
  /** Lag is counted by reading events, up to this many (default 10,000). */
  lagCap?: number;
}

/** What `tidings projections status` shows, read from the checkpoint table and the event store. */
export async function projectionStatus(options: ProjectionStatusOptions): Promise<ProjectionStatus[]> {
  const { store, database, projections } = options;
  const lagCap = options.lagCap ?? 10_000;
  await ensureCheckpointTable(database);
  const checkpoints = await readCheckpoints(
    database.db,
    projections.map((p) => p.name),
  );
  const head = await store.headPosition();
  const operations = await lastOperations(
    database,
    projections.map((p) => p.name),
  );
  const out: ProjectionStatus[] = [];
  for (const projection of projections) {
    const live = checkpoints.find((c) => c.name === projection.name && c.state === "live");
    const building = checkpoints.find((c) => c.name === projection.name && c.state === "rebuilding");
    const lag = await measureLag(store, live?.position, lagCap);
    out.push({
      name: projection.name,
      version: projection.version,
      liveVersion: live?.version,
      state: (await isHeld(database, rebuildLock(projection.name)))
        ? "rebuilding"
        : (await isHeld(database, runnerLock(projection.name)))
          ? "live"
          : "stopped",
      checkpoint: live ? formatPosition(live.position) : undefined,
      updatedAt: live?.updatedAt,
      lagEvents: lag.events,
      lagCapped: lag.events >= lagCap,
      lagSeconds: lag.seconds,
      rebuild: building
        ? {
            version: building.version,
            checkpoint: formatPosition(building.position),
            fraction: head.prepare > 0n ? Math.min(1, Number(building.position.prepare) / Number(head.prepare)) : 1,
          }
        : undefined,
      lastRebuild: operations.find((o) => o.name === projection.name && o.kind === "rebuild"),
      lastVerify: operations.find((o) => o.name === projection.name && o.kind === "verify"),
    });
  }
  return out;
}

/** Whether another session holds the lock: taking it for a moment says nobody does. */
async function isHeld(database: Database, name: string): Promise<boolean> {
  const lock = await database.tryLock(name);
  if (!lock) return true;
  await lock.release();
  return false;
}
