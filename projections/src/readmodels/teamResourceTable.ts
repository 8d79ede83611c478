import type { ColumnDefinition, TableDefinition } from "../engine/projection.js";

/** The order the api lists a team's rows in, newest first: `listPage` pages over `created_at`, then `id`. */
export const newestFirstPerTeam = "(team_id, created_at DESC, id DESC)";

/**
 * A table of a team's resources as the api lists them (`GET /topics`, `GET /domains`, …): keyed by `id`,
 * the owning team next to it, listed per team newest first. `columns` are the others in table order,
 * `created_at` among them; `indexes` are those the table needs besides the list's.
 */
export function teamResourceTable<Columns extends Record<string, ColumnDefinition> & { created_at: { type: "timestamptz" } }>(table: {
  columns: Columns;
  indexes?: Record<string, string>;
}) {
  return {
    columns: { id: { type: "uuid" }, team_id: { type: "uuid" }, ...table.columns },
    primaryKey: ["id"],
    indexes: { by_team: newestFirstPerTeam, ...table.indexes },
  } satisfies TableDefinition;
}
