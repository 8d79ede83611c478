import { CompiledQuery, sql, type Kysely } from "kysely";
import type { Database } from "@tidings/postgres";
import { formatPosition, type Position } from "@tidings/eventstore";
import { advanceCheckpoint, CHECKPOINT_CHANNEL, CheckpointMovedError, type CheckpointNotice, type CheckpointState } from "./checkpoints.js";
import type { Statement } from "./writeStatements.js";

export interface CheckpointMove {
  target: { name: string; state: CheckpointState; version: number };
  from: Position;
  to: Position;
}

/** A projection's batch: its checkpoint move and the read-model writes that commit with it. */
export interface BatchCommit extends CheckpointMove {
  statements: Statement[];
}

interface Waiting extends BatchCommit {
  settle(error?: Error): void;
}

const key = (target: { name: string; state: string }) => `${target.name}\u0000${target.state}`;

/**
 * Moves many checkpoints in one statement, each with its own guard (`position = from`) and its own notice,
 * as advanceCheckpoint does for one; commits without waiting for the WAL flush, for the same reason.
 * Returns the keys of the checkpoints it moved: one that had moved under its runner is not among them.
 */
async function moveCheckpoints(db: Kysely<unknown>, moves: CheckpointMove[]): Promise<Set<string>> {
  const notices = moves.map((m): CheckpointNotice => ({ ...m.target, position: formatPosition(m.to) }));
  const { rows } = await sql<{ name: string; state: string }>`
    UPDATE projection_checkpoints AS c SET position = m.to_position, updated_at = now()
      FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed,
           unnest(${moves.map((m) => m.target.name)}::text[], ${moves.map((m) => m.target.state)}::text[],
                  ${moves.map((m) => m.target.version)}::int[], ${moves.map((m) => formatPosition(m.from))}::text[],
                  ${notices.map((n) => n.position)}::text[], ${notices.map((n) => JSON.stringify(n))}::text[])
             AS m(name, state, version, from_position, to_position, notice)
     WHERE c.name = m.name AND c.state = m.state AND c.version = m.version AND c.position = m.from_position
    RETURNING c.name, c.state, pg_notify(${CHECKPOINT_CHANNEL}, m.notice)`.execute(db);
  return new Set(rows.map(key));
}

/**
 * One projection's batch on its own: in a transaction when it writes, else the checkpoint move alone (one
 * statement, atomic without a transaction around it).
 */
export async function commitAlone(database: Database, commit: BatchCommit): Promise<void> {
  if (commit.statements.length === 0) return advanceCheckpoint(database.db, commit.target, commit.from, commit.to);
  await database.db.transaction().execute(async (trx) => {
    await advanceCheckpoint(trx, commit.target, commit.from, commit.to);
    for (const statement of commit.statements) await trx.executeQuery(CompiledQuery.raw(statement.text, statement.params));
  });
}

/**
 * Commits the batches of the live projections that take the same `$all` batch (LiveFeed) in one
 * transaction: the commits asked for in one turn of the event loop go together. Each projection in its
 * own transaction cost a BEGIN, a checkpoint UPDATE and a COMMIT apiece, most of the projector's
 * statements. The checkpoints move first, in one statement (locking their rows, as advanceCheckpoint
 * does), then the writes of those that moved; a projection whose checkpoint moved under it fails alone.
 * When a write fails, nothing of the transaction stays, and each batch is committed again alone, so
 * the failure is only its own projection's. Batches with nothing to write need no transaction.
 */
export function batchCommitter(database: Database): (commit: BatchCommit) => Promise<void> {
  let waiting: Waiting[] = [];

  const settleMoved = (commits: Waiting[], moved: Set<string>) => {
    for (const c of commits) c.settle(moved.has(key(c.target)) ? undefined : new CheckpointMovedError(c.target.name, c.target.state));
  };

  const flush = async () => {
    const commits = waiting;
    waiting = [];
    if (commits.every((c) => c.statements.length === 0)) {
      try {
        settleMoved(commits, await moveCheckpoints(database.db, commits));
      } catch (error) {
        for (const c of commits) c.settle(error as Error);
      }
      return;
    }
    try {
      const moved = await database.db.transaction().execute(async (trx) => {
        const moved = await moveCheckpoints(trx, commits);
        for (const c of commits) {
          if (!moved.has(key(c.target))) continue;
          for (const statement of c.statements) await trx.executeQuery(CompiledQuery.raw(statement.text, statement.params));
        }
        return moved;
      });
      settleMoved(commits, moved);
    } catch {
      await Promise.all(
        commits.map((c) =>
          commitAlone(database, c).then(
            () => c.settle(),
            (error: Error) => c.settle(error),
          ),
        ),
      );
    }
  };

  return (commit) =>
    new Promise<void>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(() => void flush());
      waiting.push({ ...commit, settle: (error) => (error ? reject(error) : resolve()) });
    });
}
