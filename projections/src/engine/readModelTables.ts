import { quoteIdent } from "@tidings/postgres";
import type { Projection, TableDefinition } from "./projection.js";

/**
 * Physical names. A version's tables are `<table>_v<version>`; a rebuild fills `<table>_v<version>_next`
 * and renames it at the switch, so a rebuild of the live version (the CLI's `rebuild`) works like a
 * version bump. Readers never see either: they query the view `<table>`.
 */
export function physicalTable(table: string, version: number, shadow: boolean): string {
  return `${table}_v${version}${shadow ? "_next" : ""}`;
}

export function physicalTables(projection: Projection, version: number, shadow: boolean): Map<string, string> {
  return new Map(Object.keys(projection.tables).map((t) => [t, physicalTable(t, version, shadow)]));
}

/** Index and constraint names follow their table's name, so they can be renamed along with it. */
const primaryKeyName = (physical: string) => `${physical}_pkey`;
const indexName = (physical: string, index: string) => `${physical}_${index}`;

export function createTableSql(physical: string, definition: TableDefinition): string {
  const columns = Object.entries(definition.columns).map(
    ([name, column]) => `${quoteIdent(name)} ${column.type}${column.nullable ? "" : " NOT NULL"}`,
  );
  const key = definition.primaryKey.map(quoteIdent).join(", ");
  return `CREATE TABLE ${quoteIdent(physical)} (${columns.join(", ")}, CONSTRAINT ${quoteIdent(primaryKeyName(physical))} PRIMARY KEY (${key}))`;
}

/** Secondary indexes. A rebuild adds them once caught up: filling an unindexed table is faster. */
export function createIndexesSql(physical: string, definition: TableDefinition): string[] {
  return Object.entries(definition.indexes ?? {}).map(
    ([name, on]) => `CREATE INDEX IF NOT EXISTS ${quoteIdent(indexName(physical, name))} ON ${quoteIdent(physical)} ${on}`,
  );
}

export function dropTableSql(physical: string): string {
  return `DROP TABLE IF EXISTS ${quoteIdent(physical)}`;
}

export function renameTableSql(from: string, to: string, definition: TableDefinition): string[] {
  return [
    `ALTER TABLE ${quoteIdent(from)} RENAME TO ${quoteIdent(to)}`,
    `ALTER INDEX ${quoteIdent(primaryKeyName(from))} RENAME TO ${quoteIdent(primaryKeyName(to))}`,
    ...Object.keys(definition.indexes ?? {}).map(
      (name) => `ALTER INDEX IF EXISTS ${quoteIdent(indexName(from, name))} RENAME TO ${quoteIdent(indexName(to, name))}`,
    ),
  ];
}

export function dropViewSql(table: string): string {
  return `DROP VIEW IF EXISTS ${quoteIdent(table)}`;
}

export function createViewSql(table: string, physical: string): string {
  return `CREATE VIEW ${quoteIdent(table)} AS SELECT * FROM ${quoteIdent(physical)}`;
}
