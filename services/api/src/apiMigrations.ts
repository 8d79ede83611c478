import type { Migration } from "@tidings/postgres";

/** The rows of the api's own tables, for `database.tables<ApiTables>()`; `apiMigrations` creates them. */
export interface ApiTables {
  api_request_logs: {
    id: string;
    team_id: string;
    api_key_id: string | null;
    created_at: Date;
    endpoint: string;
    method: string;
    response_status: number;
    user_agent: string | null;
    request_body: unknown;
    response_body: unknown;
  };
  api_idempotency_keys: {
    team_id: string;
    method: string;
    path: string;
    key: string;
    request_hash: string;
    owner_request_id: string;
    reserved_at: Date;
    expires_at: Date;
    response_status: number | null;
    response_body: string | null;
  };
  api_rate_buckets: { team_id: string; tokens: number; refilled_at: Date; granted: number };
  api_key_usage: { api_key_id: string; last_used_at: Date };
}

/**
 * The api's own operational tables, in the read database: request logs, idempotency keys, rate-limit
 * buckets. None of them is a read model: they are not derived from events and a rebuild leaves them be.
 * Apply with `migrate(database, "api", apiMigrations)`.
 */
export const apiMigrations: Migration[] = [
  {
    id: "0001_request_logs",
    // Bodies are `json`, not `jsonb`: nothing queries inside them, and `json` stores the text as it comes,
    // without converting it to the binary form on every insert.
    sql: `
      CREATE TABLE api_request_logs (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL,
        api_key_id uuid,
        created_at timestamptz NOT NULL,
        endpoint text NOT NULL,
        method text NOT NULL,
        response_status integer NOT NULL,
        user_agent text,
        request_body json,
        response_body json
      );
      CREATE INDEX api_request_logs_by_team ON api_request_logs (team_id, created_at DESC, id DESC);
      CREATE INDEX api_request_logs_by_age ON api_request_logs (created_at);`,
  },
  {
    id: "0002_idempotency_keys",
    sql: `
      CREATE TABLE api_idempotency_keys (
        team_id uuid NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        owner_request_id uuid NOT NULL,
        reserved_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        response_status integer,
        response_body text,
        PRIMARY KEY (team_id, method, path, key)
      );
      CREATE INDEX api_idempotency_keys_by_expiry ON api_idempotency_keys (expires_at);`,
  },
  {
    id: "0003_rate_buckets",
    // Unlogged: a bucket is worth nothing after a crash (it refills within a second anyway), and skipping
    // the WAL makes the per-request update much cheaper.
    sql: `
      CREATE UNLOGGED TABLE api_rate_buckets (
        team_id uuid PRIMARY KEY,
        tokens double precision NOT NULL,
        refilled_at timestamptz NOT NULL,
        allowed boolean NOT NULL
      );`,
  },
  {
    id: "0004_rate_buckets_take_many",
    // One statement takes tokens for every request of a team waiting on this instance (see databaseRateBuckets).
    sql: `
      DROP TABLE api_rate_buckets;
      CREATE UNLOGGED TABLE api_rate_buckets (
        team_id uuid PRIMARY KEY,
        tokens double precision NOT NULL,
        refilled_at timestamptz NOT NULL,
        granted integer NOT NULL
      );`,
  },
];
