import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Database } from "@tidings/postgres";
import type { EventStore, Position, RecordedEvent } from "@tidings/eventstore";
import { applyBatch, moveCheckpoint, type BatchTarget } from "./applyBatch.js";
import { dataTypesOf, type Projection } from "./projection.js";
import { physicalTables } from "./readModelTables.js";
import { indexShadow, switchToShadow } from "./readModelVersions.js";

export interface RebuildProgress {
  projection: string;
  /** Events read since this build started (or resumed). */
  events: number;
  eventsPerSecond: number;
  /** 0…1, from the `prepare` part of positions, which grows with the log in both adapters. */
  fraction: number;
  /** Seconds left at the current rate; undefined before there is a rate. */
  etaSeconds: number | undefined;
  position: Position;
}

export interface ShadowBuildOptions {
  store: EventStore;
  database: Database;
  projection: Projection;
  /** Where the build's checkpoint is now (START for a fresh build). */
  from: Position;
  batchSize: number;
  onProgress?: (progress: RebuildProgress) => void;
  /** Polled between batches; a stopped build keeps its checkpoint and can resume. */
  shouldStop?: () => boolean;
}

export interface ShadowBuildResult {
  outcome: "switched" | "stopped";
  events: number;
  seconds: number;
  position: Position;
}

/**
 * Reads `$all` page by page into the shadow tables, one transaction per page, then switches. The next
 * page is read while the current one is written, so reading and writing overlap. A subscription is not
 * needed here: the build ends at the head, and a runner that started it goes live afterwards.
 */
export async function buildShadow(options: ShadowBuildOptions): Promise<ShadowBuildResult> {
  const { store, database, projection, batchSize, onProgress, shouldStop } = options;
  const target: BatchTarget = {
    projection,
    state: "rebuilding",
    version: projection.version,
    tables: physicalTables(projection, projection.version, true),
  };
  const started = Date.now();
  const dataTypes = dataTypesOf(projection);
  let position = options.from;
  let events = 0;
  let indexed = false;
  let head = await store.headPosition();
  const report = () => {
    if (!onProgress) return;
    const seconds = (Date.now() - started) / 1000;
    const eventsPerSecond = seconds > 0 ? events / seconds : 0;
    const fraction = head.prepare > 0n ? Math.min(1, Number(position.prepare) / Number(head.prepare)) : 1;
    const etaSeconds = fraction > 0 && events > 0 ? (seconds * (1 - fraction)) / fraction : undefined;
    onProgress({ projection: projection.name, events, eventsPerSecond, fraction, etaSeconds, position });
  };
  const read = (after: Position) => {
    const page = store.readAll({ after, maxCount: batchSize, dataTypes });
    // A prefetched page may be abandoned when applying the current one fails.
    page.catch(() => {});
    return page;
  };

  let next: Promise<RecordedEvent[]> = read(position);
  for (;;) {
    const page = await next;
    if (shouldStop?.()) return { outcome: "stopped", events, seconds: (Date.now() - started) / 1000, position };
    const full = page.length === batchSize;
    if (full) next = read(page.at(-1)!.position);
    position = await applyBatch(database, target, position, page);
    events += page.length;
    // PGlite answers within microtasks: without this, timers and sockets would wait out the whole build.
    await yieldToEventLoop();
    if (position.prepare > head.prepare) head = await store.headPosition();
    report();
    if (full) continue;
    if (!indexed) {
      await indexShadow(database, projection);
      indexed = true;
    }
    const switched = await switchToShadow(database, projection, position);
    if (switched.outcome === "switched") return { outcome: "switched", events, seconds: (Date.now() - started) / 1000, position };
    next = read(position);
    if ((await next).length === 0) {
      // The live checkpoint is past every readable event: the events between were deleted (erasure).
      await moveCheckpoint(database, target, position, switched.live);
      position = switched.live;
    }
  }
}
