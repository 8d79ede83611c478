import { sql, type Kysely } from "kysely";
import { migrate, type Database, type Migration } from "@tidings/postgres";
import { formatPosition, parsePosition, type Position } from "@tidings/eventstore";

/** NOTIFY channel: every checkpoint change, as a JSON `CheckpointNotice`, delivered on commit. */
export const CHECKPOINT_CHANNEL = "projection_checkpoints";

/**
 * `live` is the version readers see (its tables are behind the views); `rebuilding` is a version being
 * built from the first event into shadow tables. A projection has at most one row of each.
 */
export type CheckpointState = "live" | "rebuilding";

export interface Checkpoint {
  name: string;
  state: CheckpointState;
  version: number;
  position: Position;
  /** The logical tables of this version, so a later version can drop tables it no longer declares. */
  tables: string[];
  updatedAt: Date;
}

export interface CheckpointNotice {
  name: string;
  state: CheckpointState;
  version: number;
  position: string;
}

export const checkpointMigrations: Migration[] = [
  {
    id: "0001_projection_checkpoints",
    sql: `
CREATE TABLE projection_checkpoints (
  name text NOT NULL,
  state text NOT NULL CHECK (state IN ('live', 'rebuilding')),
  version integer NOT NULL,
  position text NOT NULL,
  tables jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, state)
);
`,
  },
  {
    id: "0002_projection_operations",
    sql: `
CREATE TABLE projection_operations (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('rebuild', 'verify')),
  outcome text NOT NULL CHECK (outcome IN ('ok', 'differs', 'failed')),
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL DEFAULT now(),
  events bigint NOT NULL,
  seconds double precision NOT NULL,
  position text,
  differences integer NOT NULL DEFAULT 0,
  detail jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX projection_operations_last ON projection_operations (name, kind, finished_at DESC);
`,
  },
  {
    // Trigram indexes let a search for any part of a text (ILIKE '%…%') read the index instead of every row:
    // the emails' search (readmodels/emails.ts). pg_trgm ships with PostgreSQL (contrib) and PGlite, and is
    // trusted: a role that may create in the database may create it.
    id: "0003_pg_trgm",
    sql: `CREATE EXTENSION IF NOT EXISTS pg_trgm;`,
  },
];

export async function ensureCheckpointTable(database: Database): Promise<void> {
  await migrate(database, "projections", checkpointMigrations);
}

interface CheckpointRow {
  name: string;
  state: CheckpointState;
  version: number;
  position: string;
  tables: string[] | string;
  updated_at: Date | string;
}

function toCheckpoint(row: CheckpointRow): Checkpoint {
  return {
    name: row.name,
    state: row.state,
    version: Number(row.version),
    position: parsePosition(row.position),
    tables: typeof row.tables === "string" ? (JSON.parse(row.tables) as string[]) : row.tables,
    updatedAt: row.updated_at instanceof Date ? row.updated_at : new Date(row.updated_at),
  };
}

/** The rows of these projections (all projections when `names` is omitted). `lock` takes them FOR UPDATE. */
export async function readCheckpoints(db: Kysely<unknown>, names?: string[], lock = false): Promise<Checkpoint[]> {
  if (names && names.length === 0) return [];
  const { rows } = await sql<CheckpointRow>`
    SELECT name, state, version, position, tables, updated_at FROM projection_checkpoints
     ${names ? sql`WHERE name IN (${sql.join(names)})` : sql``}
     ORDER BY name, state
     ${lock ? sql`FOR UPDATE` : sql``}`.execute(db);
  return rows.map(toCheckpoint);
}

export function notifyCheckpoint(checkpoint: Pick<Checkpoint, "name" | "state" | "version" | "position">) {
  return sql`SELECT ${notification(checkpoint)}`;
}

function notification(checkpoint: Pick<Checkpoint, "name" | "state" | "version" | "position">) {
  const notice: CheckpointNotice = { ...checkpoint, position: formatPosition(checkpoint.position) };
  return sql`pg_notify(${CHECKPOINT_CHANNEL}, ${JSON.stringify(notice)})`;
}

/** Thrown inside a batch's transaction when its checkpoint is no longer where the batch started. */
export class CheckpointMovedError extends Error {
  override readonly name = "CheckpointMovedError";
  constructor(projection: string, state: CheckpointState) {
    super(`projection ${projection}: the ${state} checkpoint moved under this instance`);
  }
}

/**
 * Moves a checkpoint from `from` to `to`, as the first statement of a batch's transaction. The guard
 * makes a second writer (a runner that lost its lock's connection, or a rebuild that switched under a
 * runner) fail instead of applying a batch twice, and the row lock it takes orders every batch before or
 * after a switch, never across it. The notice goes out in the same statement, one round trip per batch
 * saved; the row it returns for is the one moved, so a guard that fails notifies nothing.
 *
 * The batch's transaction commits without waiting for its WAL flush (`synchronous_commit` off for it
 * alone): a database crash can lose the last batches of a read model, but with their checkpoint, so the
 * runner applies them again from the event store, whose appends stay synchronous. Readers see a batch
 * as soon as it commits either way.
 */
export async function advanceCheckpoint(
  trx: Kysely<unknown>,
  target: { name: string; state: CheckpointState; version: number },
  from: Position,
  to: Position,
): Promise<void> {
  const { rows } = await sql`
    UPDATE projection_checkpoints SET position = ${formatPosition(to)}, updated_at = now()
      FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
     WHERE name = ${target.name} AND state = ${target.state} AND version = ${target.version}
       AND position = ${formatPosition(from)}
    RETURNING ${notification({ ...target, position: to })} AS notified`.execute(trx);
  if (rows.length === 0) throw new CheckpointMovedError(target.name, target.state);
}
