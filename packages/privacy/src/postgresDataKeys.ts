import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "kysely";
import { createSealer } from "@tidings/core";
import type { Database, Migration } from "@tidings/postgres";
import {
  mergedContentRequests,
  subjectKeyName,
  type ContentKeyRequest,
  type DataKey,
  type DataKeys,
  type SubjectKeyRequest,
} from "./dataKeys.js";

/**
 * The key table lives in DATABASE_URL's database, whatever holds the events: shredding a key must not
 * depend on the event store, which never forgets (docs/privacy.md). Links have no foreign key, because a
 * content key and its links are written by one statement; erasure deletes both.
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
];

export interface PostgresDataKeysOptions {
  /**
   * How long an opened key is kept in memory. Another process's erasure reaches this one within it: an
   * event read in that window still opens, as it would have just before the erasure.
   */
  cacheMs?: number;
}

interface KeyRow {
  id: string;
  team_id: string;
  kind: string;
  subject_hash: string | null;
  sealed_key: string;
}

export function createPostgresDataKeys(database: Database, secret: string, options: PostgresDataKeysOptions = {}): DataKeys {
  const sealer = createSealer(secret, "data-keys");
  const cacheMs = options.cacheMs ?? 2_000;
  const byId = new Map<string, { key: Buffer; at: number }>();
  const bySubject = new Map<string, { id: string; at: number }>();
  const fresh = (at: number) => Date.now() - at < cacheMs;
  const remember = (row: KeyRow): DataKey => {
    const key = sealer.open(row.sealed_key);
    const at = Date.now();
    if (byId.size > 100_000) byId.clear();
    byId.set(row.id, { key, at });
    if (row.kind === "subject" && row.subject_hash !== null)
      bySubject.set(subjectKeyName(row.team_id, row.subject_hash), { id: row.id, at });
    return { id: row.id, key };
  };
  const cachedSubject = (name: string): DataKey | undefined => {
    const hit = bySubject.get(name);
    const key = hit && fresh(hit.at) ? byId.get(hit.id) : undefined;
    return hit && key && fresh(key.at) ? { id: hit.id, key: key.key } : undefined;
  };
  const cachedKey = (id: string): Buffer | undefined => {
    const hit = byId.get(id);
    return hit && fresh(hit.at) ? hit.key : undefined;
  };

  async function upsert(subjects: SubjectKeyRequest[], content: ContentKeyRequest[]): Promise<KeyRow[]> {
    const rows = [
      ...subjects.map((s) => ({ id: randomUUID(), teamId: s.teamId, kind: "subject", subjectHash: s.subjectHash })),
      ...content.map((c) => ({ id: c.id, teamId: c.teamId, kind: c.kind as string, subjectHash: null as string | null })),
    ];
    const links = content.flatMap((c) => c.subjects.map((subjectHash) => ({ keyId: c.id, teamId: c.teamId, subjectHash })));
    // One statement: the rows this call made come back from the insert, the ones another made before
    // from the table as this statement's snapshot saw it. A row a concurrent call is making is in
    // neither; the caller asks again for it.
    const result = await sql<KeyRow>`
      WITH wanted AS (
        SELECT * FROM unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.teamId)}::text[], ${rows.map((r) => r.kind)}::text[],
          ${rows.map((r) => r.subjectHash)}::text[], ${rows.map(() => sealer.seal(randomBytes(32)))}::text[])
          AS w(id, team_id, kind, subject_hash, sealed_key)
      ), inserted AS (
        INSERT INTO data_keys (id, team_id, kind, subject_hash, sealed_key) SELECT * FROM wanted
        ON CONFLICT DO NOTHING RETURNING id, team_id, kind, subject_hash, sealed_key
      ), linked AS (
        INSERT INTO data_key_subjects (key_id, team_id, subject_hash)
        SELECT * FROM unnest(${links.map((l) => l.keyId)}::uuid[], ${links.map((l) => l.teamId)}::text[], ${links.map((l) => l.subjectHash)}::text[])
        ON CONFLICT DO NOTHING
      )
      SELECT id::text, team_id, kind, subject_hash, sealed_key FROM inserted
      UNION ALL
      SELECT k.id::text, k.team_id, k.kind, k.subject_hash, k.sealed_key FROM data_keys k
        JOIN wanted w ON w.kind = 'subject' AND k.kind = 'subject' AND k.team_id = w.team_id AND k.subject_hash = w.subject_hash
      UNION ALL
      SELECT k.id::text, k.team_id, k.kind, k.subject_hash, k.sealed_key FROM data_keys k
        JOIN wanted w ON w.kind <> 'subject' AND k.id = w.id`.execute(database.db);
    return result.rows;
  }

  // Links this process wrote, so that a later event of a stream naming the same subjects (every outcome
  // of an email names its recipients) needs no round trip while its key is cached.
  const linked = new Set<string>();
  const linksKnown = (c: ContentKeyRequest) => c.subjects.every((subject) => linked.has(`${c.id}/${subject}`));
  const upserts = batched(upsert);

  return {
    async ensure(subjects, content) {
      const ensured = { subjects: new Map<string, DataKey>(), content: new Map<string, DataKey>() };
      let missingSubjects = dedupe(subjects, (s) => subjectKeyName(s.teamId, s.subjectHash));
      let missingContent = dedupe(content, (c) => c.id);
      // Content keys seen before still need their links written: a later event of the stream may name
      // a subject the first did not (a bounce reply naming another recipient).
      missingContent = missingContent.filter((c) => {
        const key = cachedKey(c.id);
        const served = key !== undefined && linksKnown(c);
        if (served) ensured.content.set(c.id, { id: c.id, key });
        return !served;
      });
      missingSubjects = missingSubjects.filter((s) => {
        const name = subjectKeyName(s.teamId, s.subjectHash);
        const hit = cachedSubject(name);
        if (hit) ensured.subjects.set(name, hit);
        return !hit;
      });
      for (let attempt = 0; missingSubjects.length + missingContent.length > 0; attempt++) {
        if (attempt === 5) throw new Error("data keys: a key being made elsewhere did not show up");
        for (const row of await upserts(missingSubjects, missingContent)) {
          const key = remember(row);
          if (row.kind === "subject") ensured.subjects.set(subjectKeyName(row.team_id, row.subject_hash!), key);
          else ensured.content.set(row.id, key);
        }
        missingSubjects = missingSubjects.filter((s) => !ensured.subjects.has(subjectKeyName(s.teamId, s.subjectHash)));
        for (const c of missingContent) if (ensured.content.has(c.id)) for (const subject of c.subjects) linked.add(`${c.id}/${subject}`);
        missingContent = missingContent.filter((c) => !ensured.content.has(c.id));
      }
      if (linked.size > 200_000) linked.clear();
      return ensured;
    },

    async open(ids) {
      const opened = new Map<string, Buffer>();
      const wanted: string[] = [];
      for (const id of new Set(ids)) {
        const key = cachedKey(id);
        if (key) opened.set(id, key);
        else wanted.push(id);
      }
      if (wanted.length === 0) return opened;
      const { rows } = await sql<KeyRow>`
        SELECT id::text, team_id, kind, subject_hash, sealed_key FROM data_keys WHERE id = ANY(${wanted}::uuid[])`.execute(database.db);
      for (const row of rows) opened.set(row.id, remember(row).key);
      return opened;
    },

    async eraseSubject(teamId, subjectHash) {
      const { rows } = await sql<{ id: string; kind: string }>`
        WITH links AS (
          DELETE FROM data_key_subjects WHERE team_id = ${teamId} AND subject_hash = ${subjectHash} RETURNING key_id
        ), content AS (
          DELETE FROM data_keys WHERE id IN (SELECT key_id FROM links) RETURNING id, kind
        ), unlinked AS (
          DELETE FROM data_key_subjects WHERE key_id IN (SELECT id FROM content)
        ), subject AS (
          DELETE FROM data_keys WHERE kind = 'subject' AND team_id = ${teamId} AND subject_hash = ${subjectHash} RETURNING id, kind
        )
        SELECT id::text, kind FROM content UNION ALL SELECT id::text, kind FROM subject`.execute(database.db);
      for (const row of rows) byId.delete(row.id);
      bySubject.delete(subjectKeyName(teamId, subjectHash));
      return {
        subjectKeys: rows.filter((r) => r.kind === "subject").length,
        contentKeys: rows.filter((r) => r.kind !== "subject").length,
        keyIds: rows.map((r) => r.id),
      };
    },

    async expire(kind, before) {
      const { rows } = await sql<{ id: string }>`
        WITH gone AS (DELETE FROM data_keys WHERE kind = ${kind} AND created_at < ${before} RETURNING id),
        unlinked AS (DELETE FROM data_key_subjects WHERE key_id IN (SELECT id FROM gone))
        SELECT id::text FROM gone`.execute(database.db);
      for (const row of rows) byId.delete(row.id);
      return rows.length;
    },
  };
}

/**
 * Group commit for key requests: while one upsert is on its way, the requests that come meanwhile wait and
 * go together in the next, so concurrent sends share round trips instead of queueing on the pool.
 */
function batched(
  upsert: (subjects: SubjectKeyRequest[], content: ContentKeyRequest[]) => Promise<KeyRow[]>,
): (subjects: SubjectKeyRequest[], content: ContentKeyRequest[]) => Promise<KeyRow[]> {
  interface Batch {
    subjects: SubjectKeyRequest[];
    content: ContentKeyRequest[];
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
      const subjects = dedupe(batch.subjects, (s) => subjectKeyName(s.teamId, s.subjectHash));
      await upsert(subjects, mergedContentRequests(batch.content)).then(batch.resolve, batch.reject);
    }
    running = false;
  };
  return (subjects, content) => {
    if (!waiting) {
      const batch = { subjects: [], content: [] } as unknown as Batch;
      batch.promise = new Promise<KeyRow[]>((resolve, reject) => Object.assign(batch, { resolve, reject }));
      waiting = batch;
    }
    waiting.subjects.push(...subjects);
    waiting.content.push(...content);
    const { promise } = waiting;
    if (!running) void drain();
    return promise;
  };
}

function dedupe<T>(items: T[], name: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [name(item), item])).values()];
}
