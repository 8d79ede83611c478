import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import type { ApiTables } from "../apiMigrations.js";

/** The stored request log `id` as PostgreSQL's JSON of the row, or "" when there is none. */
export async function storedRequestLog(database: Database, id: string): Promise<string> {
  const rows = await sql<{ row: string }>`SELECT row_to_json(l)::text AS row FROM api_request_logs l WHERE id = ${id}`.execute(database.db);
  return rows.rows[0]?.row ?? "";
}

/** Which of the request ids `ids` have a request log. */
export async function requestLogIds(database: Database, ids: string[]): Promise<string[]> {
  const rows = await database.tables<ApiTables>().selectFrom("api_request_logs").select("id").where("id", "in", ids).execute();
  return rows.map((row) => row.id);
}
