import { mergeRows } from "./mergeRules.js";
import type { Row, TableDefinition, TallyThrough } from "./projection.js";

/** One tally of a batch, folded with the others of the same target row (or, counted once, of the same row read). */
export interface PendingTally {
  through: TallyThrough;
  /** The definition of `through.table`, for the types of the columns read. */
  source: TableDefinition;
  row: Row;
}

/** The tallies of a batch, per tallied table, folded as BatchContext.tally says. */
export class PendingTallies {
  private readonly tables = new Map<string, Map<string, PendingTally>>();

  add(table: string, definition: TableDefinition, source: TableDefinition, through: TallyThrough, row: Row): void {
    checkTally(table, definition, source, through, row);
    let pending = this.tables.get(table);
    if (!pending) this.tables.set(table, (pending = new Map()));
    const id = tallyKey(definition, through, row);
    const earlier = pending.get(id);
    if (!earlier) pending.set(id, { through, source, row: { ...row } });
    // A tally counted once keeps the batch's first; any other adds up with the earlier ones of its row.
    else if (!through.once) earlier.row = mergeRows(definition, earlier.row, row);
  }

  drain(): [table: string, tallies: PendingTally[]][] {
    const out = [...this.tables].map(([table, tallies]): [string, PendingTally[]] => [table, [...tallies.values()]]);
    this.tables.clear();
    return out;
  }
}

function tallyKey(definition: TableDefinition, through: TallyThrough, row: Row): string {
  const read = [through.table, JSON.stringify(through.key), JSON.stringify(through.columns), through.once?.column ?? ""];
  if (through.once) return read.join("\u0000");
  const own = definition.primaryKey
    .filter((c) => c in row)
    .map((c) => String(row[c] instanceof Date ? (row[c] as Date).toISOString() : row[c]));
  return [...read, ...own].join("\u0000");
}

function checkTally(table: string, definition: TableDefinition, source: TableDefinition, through: TallyThrough, row: Row): void {
  for (const [target, read] of Object.entries(through.columns)) {
    if (!definition.primaryKey.includes(target)) throw new Error(`${table}: a tally reads key columns only, not ${target}`);
    if (!(read in source.columns)) throw new Error(`${through.table}: no column ${read}`);
  }
  for (const column of source.primaryKey) {
    if (through.key[column] === undefined || through.key[column] === null)
      throw new Error(`${through.table}: key column ${column} has no value`);
  }
  if (through.once && !source.columns[through.once.column]?.nullable)
    throw new Error(`${through.table}: once column ${through.once.column} must be nullable`);
  for (const column of definition.primaryKey) {
    if (!(column in through.columns) && (row[column] === undefined || row[column] === null))
      throw new Error(`${table}: key column ${column} has no value`);
  }
  for (const column in row) {
    const merge = definition.columns[column]?.merge;
    if (!(column in definition.columns)) throw new Error(`${table}: no column ${column}`);
    if (!definition.primaryKey.includes(column) && merge !== "add" && merge !== "max" && merge !== "min")
      throw new Error(`${table}: a tally's column ${column} must merge by add, max or min`);
  }
}
