import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { CompiledQuery, sql, type Kysely } from "kysely";
import type { Database } from "@tidings/postgres";
import { comparePositions, START, type EventStore, type Position, type RecordedEvent } from "@tidings/eventstore";
import { ensureCheckpointTable, readCheckpoints } from "./checkpoints.js";
import { rebuildLock } from "./locks.js";
import { ProjectionUnavailableError } from "./projectionUnavailable.js";
import { recordFailure, recordOperation } from "./operationLog.js";
import { projectBatch } from "./projectBatch.js";
import { dataTypesOf, type Projection } from "./projection.js";
import { createTableSql, dropTableSql, physicalTables } from "./readModelTables.js";
import { compareTables, type RowDifference } from "./verifyCompare.js";
import { writeStatements } from "./writeStatements.js";

export interface VerifyOptions {
  store: EventStore;
  database: Database;
  projection: Projection;
  /** Events per transaction of the replay (default 5,000). */
  batchSize?: number;
  /** Differing rows named per table (default 20); all are counted. */
  limit?: number;
  onProgress?: (progress: VerifyProgress) => void;
}

export interface VerifyProgress {
  projection: string;
  events: number;
  position: Position;
  /** The live checkpoint the replay is heading for. */
  target: Position;
}

export interface VerifyResult {
  projection: string;
  /** The live checkpoint both sides were compared at. */
  position: Position;
  events: number;
  seconds: number;
  differences: number;
  /** Per logical table: how many rows differ. */
  tables: Record<string, number>;
  rows: RowDifference[];
}

const verifyTable = (table: string, version: number) => `${table}_v${version}_verify`;

/**
 * Replays `$all` into scratch tables and compares them with the live tables at the live checkpoint
 * (`tidings projections verify`). The replay catches up with the live projector without holding it; the
 * last stretch is applied and the comparison made in one transaction that holds the live checkpoint's
 * row lock, so a live batch waits for the comparison instead of moving the tables under it. Its events are
 * read before that transaction, since an embedded database has one session. The outcome is recorded in
 * `projection_operations`.
 */
export async function verifyProjection(options: VerifyOptions): Promise<VerifyResult> {
  const { store, database, projection } = options;
  const batchSize = options.batchSize ?? 5_000;
  const dataTypes = dataTypesOf(projection);
  await ensureCheckpointTable(database);
  // A rebuild's switch drops the live tables: the two never overlap.
  const lock = await database.tryLock(rebuildLock(projection.name));
  if (!lock) throw new ProjectionUnavailableError(`projection ${projection.name} is being rebuilt; verify it afterwards`);
  const startedAt = new Date();
  const replay = new Map(Object.keys(projection.tables).map((t) => [t, verifyTable(t, projection.version)]));
  let events = 0;
  try {
    const live = (await readCheckpoints(database.db, [projection.name])).find((c) => c.state === "live");
    if (!live) throw new ProjectionUnavailableError(`projection ${projection.name} has not run yet: there is nothing to verify`);
    if (live.version !== projection.version)
      throw new ProjectionUnavailableError(
        `projection ${projection.name} serves version ${live.version}; this build declares ${projection.version}`,
      );
    await database.db.transaction().execute(async (trx) => {
      for (const [table, definition] of Object.entries(projection.tables)) {
        const physical = replay.get(table)!;
        await sql.raw(dropTableSql(physical)).execute(trx);
        await sql.raw(createTableSql(physical, definition)).execute(trx);
      }
    });
    let position: Position = START;
    const apply = async (db: Kysely<unknown>, page: RecordedEvent[]) => {
      for (const writes of projectBatch(projection, page))
        for (const s of writeStatements(writes, (table) => replay.get(table)!)) await db.executeQuery(CompiledQuery.raw(s.text, s.params));
      events += page.length;
    };
    for (;;) {
      const target = (await readCheckpoints(database.db, [projection.name])).find((c) => c.state === "live")!.position;
      for (;;) {
        const page = (await store.readAll({ after: position, maxCount: batchSize, dataTypes })).filter(
          (e) => comparePositions(e.position, target) <= 0,
        );
        if (page.length === 0) break;
        await database.db.transaction().execute((trx) => apply(trx, page));
        position = page.at(-1)!.position;
        options.onProgress?.({ projection: projection.name, events, position, target });
        // In a serving embedded process PGlite answers within microtasks: the api's requests get their turns.
        await yieldToEventLoop();
      }
      const pending = await store.readAll({ after: position, maxCount: batchSize, dataTypes });
      const compared = await database.db.transaction().execute(async (trx) => {
        const held = (await readCheckpoints(trx, [projection.name], true)).find((c) => c.state === "live")!.position;
        const upToHeld = pending.filter((e) => comparePositions(e.position, held) <= 0);
        // The live checkpoint is the position of the last event applied. When the events read stop short of
        // it, the live projector read (and applied) events after this read did: catch up again, without
        // holding it.
        if (comparePositions(upToHeld.at(-1)?.position ?? position, held) !== 0) return undefined;
        await apply(trx, upToHeld);
        const tables = await compareTables(trx, projection, physicalTables(projection, live.version, false), replay, options.limit ?? 20);
        return { held, tables };
      });
      if (!compared) continue;
      const tables = Object.fromEntries([...compared.tables].map(([t, c]) => [t, c.differences]));
      const differences = Object.values(tables).reduce((a, b) => a + b, 0);
      const rows = [...compared.tables.values()].flatMap((c) => c.rows);
      await recordOperation(database, {
        name: projection.name,
        kind: "verify",
        outcome: differences === 0 ? "ok" : "differs",
        startedAt,
        events,
        position: compared.held,
        differences,
        detail: differences === 0 ? {} : { tables, rows: rows.slice(0, 20) },
      });
      return {
        projection: projection.name,
        position: compared.held,
        events,
        seconds: (Date.now() - startedAt.getTime()) / 1000,
        differences,
        tables,
        rows,
      };
    }
  } catch (error) {
    return recordFailure(database, { name: projection.name, kind: "verify", startedAt, events }, error);
  } finally {
    await database.db
      .transaction()
      .execute(async (trx) => {
        for (const physical of replay.values()) await sql.raw(dropTableSql(physical)).execute(trx);
      })
      .finally(() => lock.release());
  }
}
