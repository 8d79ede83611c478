import { CompiledQuery, sql, type Kysely, type Transaction } from "kysely";
import { quoteIdent, type Database } from "@tidings/postgres";
import type { RecordedEvent } from "@tidings/eventstore";
import { projectBatch } from "./projectBatch.js";
import type { Projection, TableDefinition } from "./projection.js";
import { writeStatements } from "./writeStatements.js";

/** Thrown out of the replay's transaction so that it rolls back, whatever `read` did. */
class ReplayDone extends Error {}

const createTempTableSql = (name: string, definition: TableDefinition) => {
  const columns = Object.entries(definition.columns).map(
    ([column, { type, nullable }]) => `${quoteIdent(column)} ${type}${nullable ? "" : " NOT NULL"}`,
  );
  return `CREATE TEMP TABLE ${quoteIdent(name)} (${columns.join(", ")}, PRIMARY KEY (${definition.primaryKey.map(quoteIdent).join(", ")})) ON COMMIT DROP`;
};

/** The transaction as a Database, so the api's own read functions run inside it. It reads; it does not listen or lock. */
function transactionDatabase(database: Database, trx: Transaction<unknown>): Database {
  const refuse = () => Promise.reject(new Error("a replay's database only reads"));
  return {
    kind: database.kind,
    db: trx,
    tables: <Tables>() => trx as unknown as Kysely<Tables>,
    exec: async (text) => void (await sql.raw(text).execute(trx)),
    listen: refuse,
    tryLock: refuse,
    close: async () => {},
  };
}

/**
 * Runs `events` through the handlers of `projections` into empty temporary tables named like the read
 * models' views, which they hide for the transaction (`pg_temp` first in its search_path), then calls
 * `read` on that transaction and rolls it back. `read` is the api's own query for a resource, so what
 * it returns is what GET showed when the read models held exactly these events (`tidings audit state`,
 * docs/operations.md). Nothing is written outside the temporary tables.
 */
export async function replayInScratch<T>(
  database: Database,
  projections: readonly Projection[],
  events: readonly RecordedEvent[],
  read: (scratch: Database) => Promise<T>,
): Promise<T> {
  let result: { value: T } | undefined;
  try {
    await database.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ path: string }>`SELECT current_setting('search_path') AS path`.execute(trx);
      // Setting the path (not only creating the tables) also makes PostgreSQL re-plan prepared statements.
      await sql.raw(`SET LOCAL search_path = pg_temp, ${rows[0]!.path}`).execute(trx);
      for (const projection of projections) {
        for (const [name, definition] of Object.entries(projection.tables))
          await sql.raw(createTempTableSql(name, definition)).execute(trx);
      }
      for (const projection of projections) {
        for (const writes of projectBatch(projection, [...events])) {
          for (const statement of writeStatements(writes, (table) => table)) {
            await trx.executeQuery(CompiledQuery.raw(statement.text, statement.params));
          }
        }
      }
      result = { value: await read(transactionDatabase(database, trx)) };
      throw new ReplayDone();
    });
  } catch (error) {
    if (!(error instanceof ReplayDone)) throw error;
  }
  return result!.value;
}
