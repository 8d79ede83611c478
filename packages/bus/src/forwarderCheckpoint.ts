import { parsePosition, formatPosition, START, type Position } from "@tidings/eventstore";
import type { Migration } from "@tidings/postgres";
import { sql, type Kysely } from "kysely";

/** The forwarder's checkpoints (component "forwarder"): the last `$all` position published, per forwarder name. */
export const forwarderMigrations: Migration[] = [
  {
    id: "0001_forwarder_checkpoints",
    sql: `
CREATE TABLE forwarder_checkpoints (
  name text PRIMARY KEY,
  position text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);`,
  },
];

export async function readForwarderCheckpoint(db: Kysely<unknown>, name: string): Promise<Position> {
  const { rows } = await sql<{ position: string }>`SELECT position FROM forwarder_checkpoints WHERE name = ${name}`.execute(db);
  return rows[0] ? parsePosition(rows[0].position) : START;
}

/**
 * Moves the checkpoint from `from` to `to`, only if it still stands at `from`: a forwarder whose lock was
 * lost with its connection may not know another one has taken over, and must neither move the other's
 * checkpoint backwards nor keep publishing. Returns false when the checkpoint had moved.
 *
 * The move commits without waiting for its WAL flush: a database crash can only take the checkpoint back
 * a little, and what is then published again carries the same msgIds, dropped by the bus as repeats.
 */
export async function moveForwarderCheckpoint(db: Kysely<unknown>, name: string, from: Position, to: Position): Promise<boolean> {
  const result = await sql`
    INSERT INTO forwarder_checkpoints AS c (name, position)
    SELECT ${name}, ${formatPosition(to)} FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
    ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = now()
    WHERE c.position = ${formatPosition(from)}`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

export interface PacedCheckpoint {
  /** Everything up to `to` is published: the checkpoint moves there now, or within `everyMs`. False once fenced. */
  reached(to: Position): Promise<boolean>;
  /** Writes what is published and not yet checkpointed. False once fenced. */
  flush(): Promise<boolean>;
}

/**
 * The forwarder's checkpoint, written at most once per `everyMs`: written after every batch, it was a
 * statement per append notification under load. Publishing again what a crash left past the checkpoint
 * costs nothing but the bus's dedup (the msgIds are the event ids), so a checkpoint `everyMs` behind
 * loses nothing. A quiet forwarder still writes at once, and a pending move is written when its time
 * comes even if no batch follows.
 */
export function pacedCheckpoint(db: Kysely<unknown>, name: string, from: Position, everyMs: number): PacedCheckpoint {
  let written = from;
  let due: Position | undefined;
  let writtenAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let fenced = false;

  const write = () => {
    clearTimeout(timer);
    timer = undefined;
    const to = due;
    due = undefined;
    if (to === undefined || fenced) return writing;
    writing = writing.then(async () => {
      writtenAt = Date.now();
      if (await moveForwarderCheckpoint(db, name, written, to)) written = to;
      else fenced = true;
    });
    return writing;
  };

  return {
    async reached(to) {
      due = to;
      const wait = everyMs - (Date.now() - writtenAt);
      if (wait <= 0) await write();
      else timer ??= setTimeout(() => void write().catch(() => {}), wait);
      return !fenced;
    },
    async flush() {
      await write();
      return !fenced;
    },
  };
}
