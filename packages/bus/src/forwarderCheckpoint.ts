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

export async function readForwarderCheckpoint(db: Kysely<any>, name: string): Promise<Position> {
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
export async function moveForwarderCheckpoint(db: Kysely<any>, name: string, from: Position, to: Position): Promise<boolean> {
  const result = await sql`
    INSERT INTO forwarder_checkpoints AS c (name, position)
    SELECT ${name}, ${formatPosition(to)} FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
    ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = now()
    WHERE c.position = ${formatPosition(from)}`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}
