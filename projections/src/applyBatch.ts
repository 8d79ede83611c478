import { CompiledQuery } from "kysely";
import type { Database } from "@tidings/postgres";
import type { Position, RecordedEvent } from "@tidings/eventstore";
import { advanceCheckpoint, type CheckpointState } from "./checkpoints.js";
import type { CheckpointMove } from "./checkpointMoves.js";
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
 * Applies events that follow `from` as one transaction: the checkpoint moves first (taking its row lock,
 * see advanceCheckpoint), then every read-model write of the batch. A failure anywhere rolls back both,
 * so the batch is applied entirely or not at all; a batch that writes nothing only moves the checkpoint.
 * Returns the new checkpoint.
 */
export async function applyBatch(
  database: Database,
  target: BatchTarget,
  from: Position,
  events: RecordedEvent[],
  moveAlone: (move: CheckpointMove) => Promise<void> = (move) => advanceCheckpoint(database.db, move.target, move.from, move.to),
): Promise<Position> {
  const last = events.at(-1);
  if (!last) return from;
  const statements = projectBatch(target.projection, events).flatMap((writes) =>
    writeStatements(writes, target.tables.get(writes.table)!),
  );
  // Most batches concern few of the projections (an email's events write nothing to teams or templates):
  // moving the checkpoint alone is one statement, atomic without a transaction around it (and the live
  // runner's `moveAlone` shares it with the other projections' moves, see checkpointMover).
  if (statements.length === 0) {
    await moveAlone({ target: { name: target.projection.name, state: target.state, version: target.version }, from, to: last.position });
    return last.position;
  }
  await database.db.transaction().execute(async (trx) => {
    await advanceCheckpoint(trx, { name: target.projection.name, state: target.state, version: target.version }, from, last.position);
    for (const statement of statements) await trx.executeQuery(CompiledQuery.raw(statement.text, statement.params));
  });
  return last.position;
}

/** Moves a checkpoint over a stretch of `$all` that holds no readable event. */
export async function moveCheckpoint(database: Database, target: BatchTarget, from: Position, to: Position): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    await advanceCheckpoint(trx, { name: target.projection.name, state: target.state, version: target.version }, from, to);
  });
}
