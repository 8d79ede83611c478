import { sql } from "kysely";
import { TidingsError } from "@tidings/core";
import { apiKeyStream, type ApiKeyPermission } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { isUndefinedTable, type Database } from "@tidings/postgres";

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
   * just used it: the contract gives a deleted key 1 s to fail everywhere, and a lookup made after the
   * DELETE answered sees the deletion in the key's stream, so the cache may use most of that second.
   */
  ttlMs?: number;
  /** Answers kept at most; past it the oldest go first, so a flood of made-up tokens cannot grow memory. */
  maxEntries?: number;
}

interface Entry {
  answer: Promise<ApiKeyPrincipal | undefined>;
  /** The answer once it has arrived, for `findNow`. */
  settled?: { key: ApiKeyPrincipal | undefined };
  expiresAt: number;
}

/**
 * Finds the key behind a token hash in the `api_keys` read model, a lookup of the token's key id, then
 * asks the key's own stream whether it is deleted: the read model may not have applied a deletion yet,
 * and a deleted key must stop working whatever its lag. Answers, found or not, are cached for `ttlMs`:
 * under load a key costs one query and one stream read per interval instead of per request, and
 * concurrent requests with the same token share them. Time-based expiry works the same on every instance
 * with no coordination between them. A key created a moment ago that the read model has not applied is
 * refused until it has, a refusal the client can retry; looking further for every unknown token would
 * let made-up tokens cost the event store a read each.
 */
export class ApiKeyLookup {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly database: Database,
    private readonly store: EventStore,
    options: ApiKeyLookupOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 500;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  find(tokenHash: string): Promise<ApiKeyPrincipal | undefined> {
    return this.entry(tokenHash).answer;
  }

  /**
   * `find`, answered without a promise when the cached answer has arrived: the auth hook, on every
   * request, then goes on at once instead of a turn of the microtask queue later.
   */
  findNow(tokenHash: string): ApiKeyPrincipal | undefined | Promise<ApiKeyPrincipal | undefined> {
    const entry = this.entry(tokenHash);
    return entry.settled ? entry.settled.key : entry.answer;
  }

  private entry(tokenHash: string): Entry {
    const now = performance.now();
    const cached = this.entries.get(tokenHash);
    if (cached && cached.expiresAt > now) return cached;
    if (cached) this.entries.delete(tokenHash);
    const entry: Entry = { answer: this.query(tokenHash), expiresAt: now + this.ttlMs };
    this.entries.set(tokenHash, entry);
    entry.answer.then(
      (key) => (entry.settled = { key }),
      // A failed query is not an answer: the next request asks again.
      () => this.entries.get(tokenHash) === entry && this.entries.delete(tokenHash),
    );
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }

  private async query(tokenHash: string): Promise<ApiKeyPrincipal | undefined> {
    try {
      const { rows } = await sql<{ id: string; team_id: string; permission: ApiKeyPermission; domain_id: string | null }>`
        SELECT id, team_id, permission, domain_id FROM api_keys WHERE token_hash = ${tokenHash} LIMIT 1`.execute(this.database.db);
      const row = rows[0];
      if (!row) return undefined;
      const [last] = await this.store.readStream(apiKeyStream(row.id), { direction: "backwards", maxCount: 1 });
      if (last?.type === "ApiKeyDeleted") return undefined;
      return { apiKeyId: row.id, teamId: row.team_id, permission: row.permission, domainId: row.domain_id };
    } catch (error) {
      // No `api_keys` view yet, because no projector has run on this database so far.
      if (isUndefinedTable(error)) {
        throw new TidingsError("service_unavailable", "API keys cannot be checked yet: the read models are still being created.");
      }
      throw error;
    }
  }
}
