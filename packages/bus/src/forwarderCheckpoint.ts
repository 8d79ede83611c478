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

export async function writeForwarderCheckpoint(db: Kysely<any>, name: string, position: Position): Promise<void> {
  await sql`
    INSERT INTO forwarder_checkpoints (name, position) VALUES (${name}, ${formatPosition(position)})
    ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = now()`.execute(db);
}
