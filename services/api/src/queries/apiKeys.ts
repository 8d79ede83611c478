import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import type { ReadModels } from "@tidings/projections";
import type { ApiTables } from "../apiMigrations.js";

export interface ApiKeyItem {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/**
 * A team's live keys, newest first. Without `limit` it returns every key: api-keys is one of the older
 * list endpoints that do (docs/wire-compatibility.md §2.1).
 */
export function listApiKeys(database: Database, teamId: string, page: PageRequest): Promise<ListPage<ApiKeyItem>> {
  const base = database
    .tables<ReadModels & Pick<ApiTables, "api_key_usage">>()
    .selectFrom("api_keys as k")
    .leftJoin("api_key_usage as u", "u.api_key_id", "k.id")
    .where("k.team_id", "=", teamId)
    .select(["k.id", "k.name", wireTimestamp("k.created_at").as("created_at"), wireTimestamp("u.last_used_at").as("last_used_at")]);
  return listPage(base, page, { whenLimitOmitted: "all", orderBy: ["k.created_at", "k.id"] });
}
