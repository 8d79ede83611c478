import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "kysely";
import { createSealer, deterministicId, newestEntries } from "@tidings/core";
import type { Database, Migration } from "@tidings/postgres";
import { periodMsOf, subjectKeyName, type ContentKind, type DataKey, type DataKeys, type SubjectKeyRequest } from "./dataKeys.js";

/**
 * The key table lives in DATABASE_URL's database, whatever holds the events: shredding a key must not
 * depend on the event store, which never forgets (docs/privacy.md, "Keys").
 */
export const dataKeyMigrations: Migration[] = [
  {
    id: "0001_data_keys",
    sql: `
      CREATE TABLE data_keys (
        id uuid PRIMARY KEY,
        team_id text NOT NULL,
        kind text NOT NULL,
        subject_hash text,
        sealed_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX data_keys_subject ON data_keys (team_id, subject_hash) WHERE kind = 'subject';
      CREATE INDEX data_keys_content_age ON data_keys (kind, created_at) WHERE kind <> 'subject';
      CREATE TABLE data_key_subjects (
        key_id uuid NOT NULL,
        team_id text NOT NULL,
        subject_hash text NOT NULL,
        PRIMARY KEY (key_id, subject_hash)
      );
      CREATE INDEX data_key_subjects_subject ON data_key_subjects (team_id, subject_hash);
    `,
  },
  {
    // Content keys stopped being rows (one per email and a link per recipient cost every send a round
    // trip): content is keyed by derivation from period and subject keys now. The first design's
    // content keys go with their links; what they sealed was sealed in a form this code no longer reads.
    id: "0002_period_keys",
    sql: `
      DROP TABLE data_key_subjects;
      DELETE FROM data_keys WHERE kind <> 'subject';
      DROP INDEX data_keys_content_age;
      ALTER TABLE data_keys ADD COLUMN period_end timestamptz;
      CREATE INDEX data_keys_period_end ON data_keys (kind, period_end) WHERE kind <> 'subject';
    `,
  },
];

export interface PostgresDataKeysOptions {
  /**
   * How long an opened key is kept in memory. Another process's erasure reaches this one within it: an
   * event read in that window still opens, as it would have just before the erasure.
   */
  cacheMs?: number;
  /** Keys kept (default 10,000): past twice as many, the newest this many still within cacheMs stay, the rest go. */
  maxCached?: number;
  /** Each content kind's retention in milliseconds (null: for ever), which sets its period (`periodMsOf`). */
  retention?: Partial<Record<ContentKind, number | null>>;
  /** Key ids one query looks up, at most (default 1,000). */
  idsPerLookup?: number;
}

interface KeyRow {
  id: string;
  team_id: string;
  kind: string;
  subject_hash: string | null;
  sealed_key: string;
  period_end: Date | null;
}

const columns = sql`id::text, team_id, kind, subject_hash, sealed_key, period_end`;

export function createPostgresDataKeys(database: Database, secret: string, options: PostgresDataKeysOptions = {}): DataKeys {
  const sealer = createSealer(secret, "data-keys");
  const cacheMs = options.cacheMs ?? 2_000;
  let byId = new Map<string, { key: Buffer; at: number }>();
  let bySubject = new Map<string, { id: string; at: number }>();
  const fresh = (at: number) => Date.now() - at < cacheMs;
  const maxCached = options.maxCached ?? 10_000;
  const idsPerLookup = options.idsPerLookup ?? 1_000;
  // Past twice maxCached, each map keeps its newest maxCached that are still fresh. Kept until 100,000
  // each, they were a subject key per recipient of a broadcast, ~20 MB of live heap per 100,000.
  const trimmed = <Entry extends { at: number }>(cache: Map<string, Entry>) =>
    cache.size > 2 * maxCached ? newestEntries(cache, maxCached, (entry) => fresh(entry.at)) : cache;
  const remember = (row: KeyRow): DataKey => {
    // A batch's rows reach each of its callers: a key opened moments ago is not opened again.
    const at = Date.now();
    const key = byId.get(row.id)?.key ?? sealer.open(row.sealed_key);
    // Re-inserted, so each map stays in the order its entries were last remembered.
    byId.delete(row.id);
    byId.set(row.id, { key, at });
    byId = trimmed(byId);
    if (row.kind === "subject" && row.subject_hash !== null) {
      const name = subjectKeyName(row.team_id, row.subject_hash);
      bySubject.delete(name);
      bySubject.set(name, { id: row.id, at });
      bySubject = trimmed(bySubject);
    }
    return { id: row.id, key };
  };
  const cachedKey = (id: string): Buffer | undefined => {
    const hit = byId.get(id);
    return hit && fresh(hit.at) ? hit.key : undefined;
  };
  const cachedSubject = (name: string): DataKey | undefined => {
    const hit = bySubject.get(name);
    const key = hit && fresh(hit.at) ? cachedKey(hit.id) : undefined;
    return hit && key ? { id: hit.id, key } : undefined;
  };

  // Most subjects asked for already have a key: a broadcast's recipients were imported, and each email asks
  // again for its outcome. Those are read, and only the rest get a fresh key sealed and inserted; inserting
  // all of them spent the sagas' CPU on a random key and a seal per recipient, and PostgreSQL 4 ms a batch
  // on conflicts (docs/privacy.md, "What sealing costs").
  async function subjectRows(requests: SubjectKeyRequest[]): Promise<KeyRow[]> {
    const { rows } = await sql<KeyRow>`
      SELECT ${columns} FROM data_keys k
        WHERE k.kind = 'subject'
          AND (k.team_id, k.subject_hash) IN (
            SELECT * FROM unnest(${requests.map((r) => r.teamId)}::text[], ${requests.map((r) => r.subjectHash)}::text[]))`.execute(
      database.db,
    );
    if (rows.length === requests.length) return rows;
    const found = new Set(rows.map((row) => subjectKeyName(row.team_id, row.subject_hash!)));
    const absent = requests.filter((r) => !found.has(subjectKeyName(r.teamId, r.subjectHash)));
    return [...rows, ...(await upsertSubjects(absent))];
  }

  // One statement: the rows this call made come back from the insert, the ones made before from the table
  // as this statement's snapshot saw it. A row a concurrent call is making is in neither; ask again for it.
  // Rows go in one order in every process: an insert waits for another's uncommitted row of the same
  // subject, and two inserts taking the same subjects in different orders would each wait for the other.
  async function upsertSubjects(requests: SubjectKeyRequest[]): Promise<KeyRow[]> {
    const { rows } = await sql<KeyRow>`
      WITH wanted AS (
        SELECT * FROM unnest(${requests.map(() => randomUUID())}::uuid[], ${requests.map((r) => r.teamId)}::text[],
          ${requests.map((r) => r.subjectHash)}::text[], ${requests.map(() => sealer.seal(randomBytes(32)))}::text[])
          AS w(id, team_id, subject_hash, sealed_key)
      ), inserted AS (
        INSERT INTO data_keys (id, team_id, kind, subject_hash, sealed_key)
          SELECT id, team_id, 'subject', subject_hash, sealed_key FROM wanted ORDER BY team_id COLLATE "C", subject_hash COLLATE "C"
        ON CONFLICT DO NOTHING RETURNING ${columns}
      )
      SELECT * FROM inserted
      UNION ALL
      SELECT ${columns} FROM data_keys k
        WHERE k.kind = 'subject' AND (k.team_id, k.subject_hash) IN (SELECT team_id, subject_hash FROM wanted)`.execute(database.db);
    return rows;
  }
  const upserts = batched(subjectRows);

  async function upsertPeriod(kind: ContentKind, start: number, end: number): Promise<KeyRow | undefined> {
    const id = deterministicId("period-key", kind, String(start), String(end));
    const { rows } = await sql<KeyRow>`
      WITH inserted AS (
        INSERT INTO data_keys (id, team_id, kind, sealed_key, period_end)
        VALUES (${id}::uuid, '', ${kind}, ${sealer.seal(randomBytes(32))}, ${new Date(end)})
        ON CONFLICT DO NOTHING RETURNING ${columns}
      )
      SELECT * FROM inserted UNION ALL SELECT ${columns} FROM data_keys WHERE id = ${id}::uuid`.execute(database.db);
    return rows[0];
  }
  // The current period's key of each kind, and the lookup in flight for one whose period just began.
  const current = new Map<ContentKind, { key: DataKey; end: number; at: number }>();
  const pending = new Map<ContentKind, Promise<DataKey>>();
  async function makePeriod(kind: ContentKind): Promise<DataKey> {
    const length = periodMsOf(options.retention?.[kind]);
    const start = Math.floor(Date.now() / length) * length;
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await upsertPeriod(kind, start, start + length);
      if (row) {
        const key = remember(row);
        current.set(kind, { key, end: start + length, at: Date.now() });
        return key;
      }
    }
    throw new Error("data keys: a period key being made elsewhere did not show up");
  }

  return {
    async subjects(requests) {
      const found = new Map<string, DataKey>();
      let missing = [...new Map(requests.map((r) => [subjectKeyName(r.teamId, r.subjectHash), r])).values()].filter((r) => {
        const name = subjectKeyName(r.teamId, r.subjectHash);
        const hit = cachedSubject(name);
        if (hit) found.set(name, hit);
        return !hit;
      });
      for (let attempt = 0; missing.length > 0; attempt++) {
        if (attempt === 5) throw new Error("data keys: a key being made elsewhere did not show up");
        for (const row of await upserts(missing)) found.set(subjectKeyName(row.team_id, row.subject_hash!), remember(row));
        missing = missing.filter((r) => !found.has(subjectKeyName(r.teamId, r.subjectHash)));
      }
      return found;
    },

    async period(kind) {
      const now = Date.now();
      const hit = current.get(kind);
      if (hit && now < hit.end && fresh(hit.at)) return hit.key;
      let making = pending.get(kind);
      if (!making) {
        making = makePeriod(kind).finally(() => pending.delete(kind));
        pending.set(kind, making);
      }
      return making;
    },

    async open(ids) {
      const opened = new Map<string, Buffer>();
      const wanted: string[] = [];
      for (const id of new Set(ids)) {
        const key = cachedKey(id);
        if (key) opened.set(id, key);
        else wanted.push(id);
      }
      // In queries of a bounded size: a read of a whole broadcast's plan (a command on its stream, a page of
      // the projector's feed) names every recipient's key, and asked for 100,000 of them in one array.
      for (let start = 0; start < wanted.length; start += idsPerLookup) {
        const ids = wanted.slice(start, start + idsPerLookup);
        const { rows } = await sql<KeyRow>`SELECT ${columns} FROM data_keys WHERE id = ANY(${ids}::uuid[])`.execute(database.db);
        for (const row of rows) opened.set(row.id, remember(row).key);
      }
      return opened;
    },

    async eraseSubject(teamId, subjectHash) {
      const { rows } = await sql<{ id: string }>`
        DELETE FROM data_keys WHERE kind = 'subject' AND team_id = ${teamId} AND subject_hash = ${subjectHash} RETURNING id::text`.execute(
        database.db,
      );
      for (const row of rows) byId.delete(row.id);
      bySubject.delete(subjectKeyName(teamId, subjectHash));
      return { subjectKeys: rows.length, keyIds: rows.map((r) => r.id) };
    },

    async expire(kind, before) {
      const { rows } = await sql<{ id: string }>`
        DELETE FROM data_keys WHERE kind = ${kind} AND period_end <= ${before} RETURNING id::text`.execute(database.db);
      for (const row of rows) byId.delete(row.id);
      if (rows.some((row) => row.id === current.get(kind)?.key.id)) current.delete(kind);
      return rows.length;
    },
  };
}

/**
 * Group commit for key requests: while one upsert is on its way, the requests that come meanwhile wait and
 * go together in the next, so concurrent sends share round trips instead of queueing on the pool.
 */
function batched(upsert: (requests: SubjectKeyRequest[]) => Promise<KeyRow[]>): (requests: SubjectKeyRequest[]) => Promise<KeyRow[]> {
  interface Batch {
    requests: SubjectKeyRequest[];
    promise: Promise<KeyRow[]>;
    resolve(rows: KeyRow[]): void;
    reject(error: unknown): void;
  }
  let waiting: Batch | undefined;
  let running = false;
  const drain = async () => {
    running = true;
    while (waiting) {
      const batch = waiting;
      waiting = undefined;
      const requests = [...new Map(batch.requests.map((r) => [subjectKeyName(r.teamId, r.subjectHash), r])).values()];
      await upsert(requests).then(batch.resolve, batch.reject);
    }
    running = false;
  };
  return (requests) => {
    if (!waiting) {
      const batch = { requests: [] } as unknown as Batch;
      batch.promise = new Promise<KeyRow[]>((resolve, reject) => Object.assign(batch, { resolve, reject }));
      waiting = batch;
    }
    waiting.requests.push(...requests);
    const { promise } = waiting;
    if (!running) void drain();
    return promise;
  };
}
