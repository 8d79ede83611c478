import { sql } from "kysely";
import type { Database, Migration } from "@tidings/postgres";

/**
 * `last_used_at` of each key. It is operational data, not a domain fact, so it is written straight to its
 * own table rather than as events, and no projection owns the table: rebuilding `api_keys` keeps it.
 * Apply with `migrate(database, "api-key-usage", apiKeyUsageMigrations)`; the app does on start.
 */
export const apiKeyUsageMigrations: Migration[] = [
  {
    id: "0001_api_key_usage",
    sql: `
      CREATE TABLE api_key_usage (
        api_key_id uuid PRIMARY KEY,
        last_used_at timestamptz NOT NULL
      );`,
  },
];

export const API_KEY_USAGE_COMPONENT = "api-key-usage";

/**
 * Remembers in memory when each key was last used, and writes all of them in one statement per flush
 * (about once a minute). A request only sets a map entry: nothing on the request path waits on the
 * database for this, and a key is written at most once per flush however busy it is. Several instances
 * may flush the same key; the newer time wins.
 */
export class ApiKeyUsage {
  private pending = new Map<string, Date>();

  constructor(private readonly database: Database) {}

  touch(apiKeyId: string, at: Date): void {
    this.pending.set(apiKeyId, at);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const rows = JSON.stringify([...batch].map(([id, at]) => ({ id, at: at.toISOString() })));
    try {
      await sql`
        INSERT INTO api_key_usage (api_key_id, last_used_at)
        SELECT r.id, r.at FROM jsonb_to_recordset(${rows}::jsonb) AS r(id uuid, at timestamptz)
        ON CONFLICT (api_key_id) DO UPDATE SET last_used_at = GREATEST(api_key_usage.last_used_at, EXCLUDED.last_used_at)`.execute(
        this.database.db,
      );
    } catch (error) {
      // Keep what failed for the next flush, unless a newer use has replaced it meanwhile.
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
      throw error;
    }
  }
}
