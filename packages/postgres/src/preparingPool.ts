import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";
import type pg from "pg";
import { isResultTypeChange, type StatementNames } from "./statementNames.js";

/**
 * The pool kysely queries through, sending the statements `names` picks as named statements. A named
 * statement whose result type changed under it is retired; outside a transaction the query is then
 * run again at once under its new name (nothing ran: PostgreSQL refuses before executing). Inside
 * one the error stands, as the transaction is already aborted, and the caller's retry finds the new name.
 */
export function preparingPool(pool: pg.Pool, names: StatementNames): PostgresPool {
  return {
    connect: async () => preparingClient(await pool.connect(), names),
    end: () => pool.end(),
  };
}

function preparingClient(client: pg.PoolClient, names: StatementNames): PostgresPoolClient {
  let inTransaction = false;
  const run = (text: string, values: unknown[]) => {
    const name = names.nameOf(text);
    return name === undefined ? client.query(text, values) : client.query({ name, text, values });
  };
  const query = async (text: string, parameters: ReadonlyArray<unknown>) => {
    const values = [...parameters];
    // kysely opens and ends its transactions with these statements, and only with these.
    if (/^\s*(begin|start transaction)\b/i.test(text)) inTransaction = true;
    else if (/^\s*(commit|rollback)\b/i.test(text) && !/^\s*rollback\s+to\b/i.test(text)) inTransaction = false;
    try {
      return await run(text, values);
    } catch (error) {
      if (!isResultTypeChange(error)) throw error;
      names.retire(text);
      if (inTransaction) throw error;
      return await run(text, values);
    }
  };
  function overloaded<R>(text: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  function overloaded<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function overloaded(textOrCursor: string | object, parameters?: ReadonlyArray<unknown>): unknown {
    // kysely's streaming cursor is a pg-cursor, which pg takes as a submittable query.
    return typeof textOrCursor === "string" ? query(textOrCursor, parameters ?? []) : client.query(textOrCursor as pg.Submittable);
  }
  return { query: overloaded, release: () => client.release() };
}
