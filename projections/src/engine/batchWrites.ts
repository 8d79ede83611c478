import { mergeRows } from "./mergeRules.js";
import { PendingTallies, type PendingTally } from "./pendingTallies.js";
import type { BatchContext, Projection, Row, TableDefinition, TallyThrough } from "./projection.js";

/**
 * Everything a batch does to one row, folded: first a delete, then an update of the row as it then is,
 * then an upsert. Any sequence of writes to one key reduces to this shape, and applying the three parts
 * in that order (all deletes, all updates, all upserts of a table) gives the row the sequence would have.
 */
export interface PendingRow {
  key: Row;
  deleted: boolean;
  update?: Row;
  upsert?: Row;
}

/** A table's folded row writes, or (after every table's rows, so they read what the batch wrote) its tallies. */
export interface TableWrites {
  table: string;
  definition: TableDefinition;
  rows: PendingRow[];
  tallies: PendingTally[];
}

/** The write buffer behind a batch's BatchContext. */
export class BatchWrites implements BatchContext {
  private readonly tables = new Map<string, Map<string, PendingRow>>();
  private readonly tallies = new PendingTallies();

  constructor(private readonly projection: Projection) {}

  upsert(table: string, row: Row): void {
    const definition = this.definition(table);
    checkColumns(table, definition, row);
    const pending = this.pending(table, definition, row);
    pending.upsert = pending.upsert ? mergeRows(definition, pending.upsert, row) : { ...row };
  }

  update(table: string, key: Row, changes: Row): void {
    const definition = this.definition(table);
    checkColumns(table, definition, changes);
    for (const column of definition.primaryKey) {
      if (column in changes) throw new Error(`${this.projection.name}: update of ${table} changes key column ${column}`);
    }
    const pending = this.pending(table, definition, key);
    if (pending.upsert) pending.upsert = mergeRows(definition, pending.upsert, changes);
    else if (!pending.deleted) pending.update = pending.update ? mergeRows(definition, pending.update, changes) : { ...changes };
  }

  delete(table: string, key: Row): void {
    const definition = this.definition(table);
    const pending = this.pending(table, definition, key);
    pending.deleted = true;
    delete pending.update;
    delete pending.upsert;
  }

  tally(table: string, through: TallyThrough, row: Row): void {
    this.tallies.add(table, this.definition(table), this.definition(through.table), through, row);
  }

  /** The folded writes, per table, then the tallies, per table; empty when no handler wrote anything. */
  drain(): TableWrites[] {
    const out: TableWrites[] = [];
    for (const [table, rows] of this.tables) {
      if (rows.size > 0) out.push({ table, definition: this.projection.tables[table]!, rows: [...rows.values()], tallies: [] });
    }
    this.tables.clear();
    for (const [table, tallies] of this.tallies.drain()) out.push({ table, definition: this.projection.tables[table]!, rows: [], tallies });
    return out;
  }

  private definition(table: string): TableDefinition {
    const definition = this.projection.tables[table];
    if (!definition) throw new Error(`${this.projection.name}: no table ${table}`);
    return definition;
  }

  private pending(table: string, definition: TableDefinition, row: Row): PendingRow {
    let rows = this.tables.get(table);
    if (!rows) this.tables.set(table, (rows = new Map()));
    const id = rowKey(table, definition, row);
    let pending = rows.get(id);
    if (!pending) {
      const key: Row = {};
      for (const column of definition.primaryKey) key[column] = row[column];
      rows.set(id, (pending = { key, deleted: false }));
    }
    return pending;
  }
}

function rowKey(table: string, definition: TableDefinition, row: Row): string {
  const { primaryKey } = definition;
  if (primaryKey.length === 1) return keyPart(table, primaryKey[0]!, row);
  return primaryKey.map((column) => keyPart(table, column, row)).join("\u0000");
}

function keyPart(table: string, column: string, row: Row): string {
  const value = row[column];
  if (value === undefined || value === null) throw new Error(`${table}: key column ${column} has no value`);
  return value instanceof Date ? value.toISOString() : String(value);
}

function checkColumns(table: string, definition: TableDefinition, row: Row): void {
  for (const column in row) {
    if (!(column in definition.columns)) throw new Error(`${table}: no column ${column}`);
  }
}
