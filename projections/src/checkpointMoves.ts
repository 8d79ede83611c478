import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { formatPosition, type Position } from "@tidings/eventstore";
import { CHECKPOINT_CHANNEL, CheckpointMovedError, type CheckpointNotice, type CheckpointState } from "./checkpoints.js";

export interface CheckpointMove {
  target: { name: string; state: CheckpointState; version: number };
  from: Position;
  to: Position;
}

interface Waiting extends CheckpointMove {
  settle(error?: Error): void;
}

/**
 * Moves checkpoints that have nothing to write with them, many in one statement. The live projections of
 * a process take each batch in lockstep, and most have nothing in it (an email's events write nothing to
 * teams or templates): one UPDATE per projection per batch was most of the projector's statements. The
 * moves asked for in one turn of the event loop go out together. Each keeps its own guard (`position =
 * from`) and its own notice, so a move whose checkpoint moved under it fails alone, as advanceCheckpoint's.
 */
export function checkpointMover(database: Database): (move: CheckpointMove) => Promise<void> {
  let waiting: Waiting[] = [];

  const flush = async () => {
    const moves = waiting;
    waiting = [];
    try {
      const notices = moves.map((m): CheckpointNotice => ({ ...m.target, position: formatPosition(m.to) }));
      const { rows } = await sql<{ name: string; state: string }>`
        UPDATE projection_checkpoints AS c SET position = m.to_position, updated_at = now()
          FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed,
               unnest(${moves.map((m) => m.target.name)}::text[], ${moves.map((m) => m.target.state)}::text[],
                      ${moves.map((m) => m.target.version)}::int[], ${moves.map((m) => formatPosition(m.from))}::text[],
                      ${notices.map((n) => n.position)}::text[], ${notices.map((n) => JSON.stringify(n))}::text[])
                 AS m(name, state, version, from_position, to_position, notice)
         WHERE c.name = m.name AND c.state = m.state AND c.version = m.version AND c.position = m.from_position
        RETURNING c.name, c.state, pg_notify(${CHECKPOINT_CHANNEL}, m.notice)`.execute(database.db);
      const moved = new Set(rows.map((r) => `${r.name}\u0000${r.state}`));
      for (const m of moves) m.settle(moved.has(`${m.target.name}\u0000${m.target.state}`) ? undefined : new CheckpointMovedError(m.target.name, m.target.state));
    } catch (error) {
      for (const m of moves) m.settle(error as Error);
    }
  };

  return (move) =>
    new Promise<void>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ ...move, settle: (error) => (error ? reject(error) : resolve()) });
    });
}
