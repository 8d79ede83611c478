import { sql } from "kysely";
import { TidingsError } from "@tidings/core";
import type { ApiKeyPermission } from "@tidings/domain";
import type { Database } from "@tidings/postgres";

/** A live key, as the auth plugin needs it. */
export interface ApiKeyPrincipal {
  apiKeyId: string;
  teamId: string;
  permission: ApiKeyPermission;
  domainId: string | null;
}

export interface ApiKeyLookupOptions {
  /**
   * How long an answer is reused. It bounds how long a deleted key keeps working on an instance that has
   * just used it: the contract gives a deleted key 1 s to fail everywhere, and the DELETE itself returns
   * only once the read model has dropped the key, so the cache may use most of that second.
   */
  ttlMs?: number;
  /** Answers kept at most; past it the oldest go first, so a flood of made-up tokens cannot grow memory. */
  maxEntries?: number;
}

interface Entry {
  answer: Promise<ApiKeyPrincipal | undefined>;
  expiresAt: number;
}

/**
 * Finds the key behind a token hash in the `api_keys` read model. Answers, found or not, are cached for
 * `ttlMs`: under load a key costs one query per interval instead of one per request, and concurrent
 * requests with the same token share one query. Time-based expiry works the same on every instance with
 * no coordination between them.
 */
export class ApiKeyLookup {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly database: Database,
    options: ApiKeyLookupOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 500;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  find(tokenHash: string): Promise<ApiKeyPrincipal | undefined> {
    const now = performance.now();
    const cached = this.entries.get(tokenHash);
    if (cached && cached.expiresAt > now) return cached.answer;
    if (cached) this.entries.delete(tokenHash);
    const answer = this.query(tokenHash);
    this.entries.set(tokenHash, { answer, expiresAt: now + this.ttlMs });
    // A failed query is not an answer: the next request asks again.
    answer.catch(() => this.entries.delete(tokenHash));
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return answer;
  }

  private async query(tokenHash: string): Promise<ApiKeyPrincipal | undefined> {
    try {
      const { rows } = await sql<{ id: string; team_id: string; permission: ApiKeyPermission; domain_id: string | null }>`
        SELECT id, team_id, permission, domain_id FROM api_keys WHERE token_hash = ${tokenHash} LIMIT 1`.execute(this.database.db);
      const row = rows[0];
      return row && { apiKeyId: row.id, teamId: row.team_id, permission: row.permission, domainId: row.domain_id };
    } catch (error) {
      // 42P01: no `api_keys` view yet, because no projector has run on this database so far.
      if ((error as { code?: string }).code === "42P01") {
        throw new TidingsError("service_unavailable", "API keys cannot be checked yet: the read models are still being created.");
      }
      throw error;
    }
  }
}
