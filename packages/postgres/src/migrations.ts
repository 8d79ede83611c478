import { sql, type Generated } from "kysely";
import type { Database } from "./database.js";

export interface Migration {
  /** Sortable and never renamed once released, e.g. `0001_events`. */
  id: string;
  sql: string;
}

/**
 * Applies each component's migrations once, in id order. Several processes may start together in
 * server mode, so the whole run holds a transaction-level advisory lock.
 */
/** The table that records which migrations ran, for `database.tables<MigrationTables>()`. */
interface MigrationTables {
  schema_migrations: { component: string; id: string; applied_at: Generated<Date> };
}

export async function migrate(database: Database, component: string, migrations: Migration[]): Promise<string[]> {
  const applied: string[] = [];
  const ordered = [...migrations].sort((a, b) => a.id.localeCompare(b.id));
  await database
    .tables<MigrationTables>()
    .transaction()
    .execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended('schema_migrations', 0))`.execute(trx);
      // Under the lock: two processes creating it at once on a new database collide on PostgreSQL's catalog
      // ("duplicate key value violates unique constraint pg_type_typname_nsp_index"), IF NOT EXISTS or not.
      await sql`
        CREATE TABLE IF NOT EXISTS schema_migrations (
          component text NOT NULL,
          id text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (component, id)
        )`.execute(trx);
      const done = new Set(
        (await trx.selectFrom("schema_migrations").select("id").where("component", "=", component).execute()).map((r) => r.id),
      );
      for (const m of ordered) {
        if (done.has(m.id)) continue;
        for (const statement of splitStatements(m.sql)) {
          await sql.raw(statement).execute(trx);
        }
        await trx.insertInto("schema_migrations").values({ component, id: m.id }).execute();
        applied.push(m.id);
      }
    });
  return applied;
}

/**
 * Splits migration text on `;` at the end of a line, keeping `$$`-quoted function bodies whole. Inside a
 * transaction we run statements one by one through the query protocol, which takes one statement each.
 */
export function splitStatements(text: string): string[] {
  const out: string[] = [];
  let current = "";
  let inDollar = false;
  for (const line of text.split("\n")) {
    const dollars = line.match(/\$\$/g)?.length ?? 0;
    if (dollars % 2 === 1) inDollar = !inDollar;
    current += line + "\n";
    if (!inDollar && /;\s*(--.*)?$/.test(line)) {
      if (current.trim()) out.push(current.trim().replace(/;\s*(--.*)?$/, ""));
      current = "";
    }
  }
  if (current.trim()) out.push(current.trim());
  return out.filter((s) => s.replace(/--.*$/gm, "").trim().length > 0);
}
