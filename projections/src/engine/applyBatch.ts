import type { Database } from "@tidings/postgres";
import type { Position, RecordedEvent } from "@tidings/eventstore";
import { advanceCheckpoint, type CheckpointState } from "./checkpoints.js";
import { commitAlone, type BatchCommit } from "./checkpointMoves.js";
import { projectBatch } from "./projectBatch.js";
import type { Projection } from "./projection.js";
import { writeStatements } from "./writeStatements.js";

/** Where a batch goes: the checkpoint row it advances and the physical tables behind its writes. */
export interface BatchTarget {
  projection: Projection;
  state: CheckpointState;
  version: number;
  /** Logical table → physical table. */
  tables: Map<string, string>;
}

/**
 * Applies events that follow `from`: the checkpoint moves (taking its row lock, see advanceCheckpoint),
 * and every read-model write of the batch commits with it, entirely or not at all. `commit` does it,
 * alone by default; the live runner's shares a transaction with the other projections of the same
 * `$all` batch (batchCommitter). Returns the new checkpoint.
 */
export async function applyBatch(
  database: Database,
  target: BatchTarget,
  from: Position,
  events: RecordedEvent[],
  commit: (batch: BatchCommit) => Promise<void> = (batch) => commitAlone(database, batch),
): Promise<Position> {
  const last = events.at(-1);
  if (!last) return from;
  const statements = projectBatch(target.projection, events).flatMap((writes) =>
    writeStatements(writes, (table) => target.tables.get(table)!),
  );
  await commit({
    target: { name: target.projection.name, state: target.state, version: target.version },
    from,
    to: last.position,
    statements,
  });
  return last.position;
}

/** Moves a checkpoint over a stretch of `$all` that holds no readable event. */
export async function moveCheckpoint(database: Database, target: BatchTarget, from: Position, to: Position): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    await advanceCheckpoint(trx, { name: target.projection.name, state: target.state, version: target.version }, from, to);
  });
}
