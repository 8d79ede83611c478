import type { RecordedEvent } from "@tidings/eventstore";

/**
 * How a write meets a value already in the row (or already buffered in the same batch):
 * - `replace`: the new value wins (the default);
 * - `add`: the values are summed, a NULL counting as 0 (counters);
 * - `keep`: the first non-NULL value wins (`first_seen_at`);
 * - `max` / `min`: the greater / lesser wins, NULLs ignored (`last_revision`).
 * Every rule is associative, which is what lets a batch fold many writes to one row into one.
 */
export type MergeRule = "replace" | "add" | "keep" | "max" | "min";

/** The PostgreSQL types a read-model column may have; each maps to the type a query reads (`readModels.ts`). */
export type ColumnType = "uuid" | "text" | "bigint" | "integer" | "numeric" | "boolean" | "timestamptz" | "jsonb";

export interface ColumnDefinition {
  /** The column's PostgreSQL type (also used for casts). */
  type: ColumnType;
  /** Columns are NOT NULL unless this is true. */
  nullable?: boolean;
  merge?: MergeRule;
  /** What the column holds where that is narrower than its SQL type, as `holds<T>()` says: for the types only, never set. */
  readonly holds?: unknown;
}

/**
 * Spread into a column's definition to say what it holds, where that is narrower than its SQL type: the
 * shape of a `jsonb` value, `{ type: "jsonb", ...holds<string[]>() }`, or the words a `text` column takes,
 * `{ type: "text", ...holds<BroadcastStatus>() }`. Queries then read it typed. It adds nothing at run time.
 */
export const holds = <T>(): { readonly holds?: T } => ({});

export interface TableDefinition {
  /** Column name → definition, in the order the physical table (and the checksum) uses. */
  columns: Record<string, ColumnDefinition>;
  primaryKey: string[];
  /** Index name → what follows `ON <table>`, e.g. `(team_id, created_at DESC)`. Built before a switch. */
  indexes?: Record<string, string>;
}

export type Row = Record<string, unknown>;

/**
 * What a handler writes through. Nothing reaches the database until the batch ends: writes to one row
 * are folded together in memory, then each table gets one multi-row statement per kind of write, all in
 * the batch's transaction with the checkpoint. A handler therefore never waits on a round trip, and it
 * has no way to read or to cause anything outside its tables (docs/architecture.md §1: no side effects).
 */
export interface BatchContext {
  /** Inserts the row, or merges it into the existing one column by column (see MergeRule). */
  upsert(table: string, row: Row): void;
  /** Merges `changes` into the row with this key if it exists; does nothing otherwise. */
  update(table: string, key: Row, changes: Row): void;
  delete(table: string, key: Row): void;
  /**
   * Merges `row` into the row of `table` keyed by `row`'s key columns plus those `through` reads from a row
   * of another of the projection's tables: an event that names only an email counts under the email's
   * domain. Tallies apply after the batch's other writes, so they find a row the same batch made; with no
   * row to read, nothing is counted. Every column of `row` outside the key must merge by `add`, `max` or `min`;
   * a row a tally makes starts the `add` columns it does not name at 0.
   */
  tally(table: string, through: TallyThrough, row: Row): void;
}

/** Where a tally reads the key columns its handler cannot know (see BatchContext.tally). */
export interface TallyThrough {
  /** The table read, and the key of its row. */
  table: string;
  key: Row;
  /** Key column of the tallied table ← column of the row read. */
  columns: Record<string, string>;
  /**
   * Counts the first time only: the tally applies while this nullable column of the row read is NULL, and
   * sets it to `value` in the same statement, so a second open of an email adds nothing to unique opens,
   * in this batch or any later one. Of several in one batch, the first wins.
   */
  once?: { column: string; value: unknown };
}

/** Synchronous on purpose: a handler turns one event into writes, with no I/O of its own. */
export type EventHandler = (event: RecordedEvent, context: BatchContext) => void;

/**
 * A read model: its tables and the handlers that fill them. Declared `satisfies Projection` rather than
 * typed as one, so that its column definitions keep their literal types, from which `ReadModels` derives
 * the row types every query reads through.
 */
export interface Projection<Tables extends Record<string, TableDefinition> = Record<string, TableDefinition>> {
  /** Stable, and the key of its checkpoint and lock. */
  name: string;
  /**
   * Bump it whenever the tables or the handlers change meaning: the runner then rebuilds into new
   * tables from the first event while the current ones keep serving, and switches once caught up.
   */
  version: number;
  /** Logical table name → definition. Readers query the logical name, a view on the live version. */
  tables: Tables;
  /** Event type → handler. `"*"` sees every event, after the handler for its type if there is one. */
  handlers: Record<string, EventHandler>;
  /**
   * False when the `"*"` handler reads no event's data (stream ids, types, positions only): a rebuild then
   * opens the personal data of the handled types alone (`dataTypesOf`). Unset: it reads every event's data.
   */
  anyTypeReadsData?: false;
}

/**
 * The event types whose data a projection's handlers read, for the store's `dataTypes` (docs/privacy.md,
 * "Reading only what is read"): its handlers' types, or every type (undefined) when its `"*"` handler
 * reads data.
 */
export function dataTypesOf(projection: Projection): ReadonlySet<string> | undefined {
  const types = Object.keys(projection.handlers);
  if (types.includes("*") && projection.anyTypeReadsData !== false) return undefined;
  return new Set(types.filter((type) => type !== "*"));
}
