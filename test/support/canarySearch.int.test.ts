import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";
import { testMode, testPostgresUrl } from "@tidings/postgres";
import { connect, headers, StorageType } from "nats";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  formatFindings,
  searchAllServerDatabases,
  searchDatabase,
  searchFiles,
  searchLiveRows,
  searchNatsStreams,
  type Finding,
} from "./canarySearch.js";
import { serverModeOnly } from "./serverModeOnly.js";

const address = "Zoe.Canary-x7q@example.com";
const firstName = "Kanarienvogel-x7q";
/** Stored only inside bytes (a bytea column, a base64 payload), to show those are read. */
const inBytes = "blob-only-canary-x7q";
/** Stored nowhere, or only where it was deleted. */
const absent = "absent-canary-x7q";
const canaries = [address, firstName, inBytes, absent];
const tag = Math.random().toString(36).slice(2, 10);

/** One line per finding, without the offsets and context that say nothing about where. */
const summary = (findings: Finding[]) =>
  findings.map(
    (f) => `${f.canary} ${f.kind} ${[f.where.database, f.where.table, f.where.stream, f.where.sequence, f.where.part].join("|")}`,
  );

const schema = `
  CREATE SCHEMA audience;
  CREATE TABLE audience.contacts (id text PRIMARY KEY, email text, data jsonb, file bytea);
  CREATE TABLE public.notes (note text);
  INSERT INTO audience.contacts VALUES
    ('c1', '${address.toLowerCase()}', '{"firstName": "${firstName}"}', convert_to('name,email' || chr(10) || '${inBytes}', 'UTF8'));
  INSERT INTO public.notes VALUES ('nothing personal');`;

describe("searchLiveRows", () => {
  let query: (sql: string) => Promise<{ rows: unknown[] }>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    if (testMode() === "server") {
      const database = await createServerDatabase(`tidings_canary_rows_${tag}`);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(schema);
      query = (sql) => client.query(sql);
      close = async () => {
        await client.end();
        await database.drop();
      };
    } else {
      const lite = new PGlite();
      await lite.exec(schema);
      query = (sql) => lite.query(sql);
      close = () => lite.close();
    }
  });
  afterAll(() => close());

  it("finds each stored canary in its table, bytea included, and nothing of one never stored", async () => {
    expect(summary(await searchLiveRows(query, canaries)).sort()).toEqual(
      [`${address} plain |audience.contacts|||`, `${firstName} plain |audience.contacts|||`, `${inBytes} hex |audience.contacts|||`].sort(),
    );
  });
});

describe.skipIf(!serverModeOnly("the pg_dump and JetStream canary search", "pg_dump and JetStream need a server"))(
  "searchDatabase and searchNatsStreams",
  () => {
    const name = `tidings_canary_${tag}`;
    const stream = `CANARY_${tag}`;
    const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
    let database: { url: string; drop(): Promise<void> };

    beforeAll(async () => {
      database = await createServerDatabase(name);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(schema);
      await client.end();

      const nc = await connect({ servers: natsUrl });
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: stream, subjects: [`canary_${tag}.>`], storage: StorageType.Memory });
      const js = nc.jetstream();
      const h = headers();
      h.set("Tidings-Contact-Name", firstName);
      await js.publish(`canary_${tag}.events`, JSON.stringify({ email: address }), { headers: h });
      const deleted = await js.publish(`canary_${tag}.events`, JSON.stringify({ note: absent }));
      const attachment = Buffer.from(`name,email\n${inBytes}\n`).toString("base64");
      await js.publish(`canary_${tag}.events`, JSON.stringify({ attachment }));
      await jsm.streams.deleteMessage(stream, deleted.seq);
      await nc.close();
    });

    afterAll(async () => {
      const nc = await connect({ servers: natsUrl });
      await (await nc.jetstreamManager()).streams.delete(stream).catch(() => {});
      await nc.close();
      await database?.drop();
    });

    const inDump = [
      `${address} plain ${name}|audience.contacts|||`,
      `${firstName} plain ${name}|audience.contacts|||`,
      `${inBytes} hex ${name}|audience.contacts|||`,
    ].sort();

    it("finds each stored canary in a database's dump, naming the database and table", async () => {
      expect(summary(await searchDatabase(database.url, canaries)).sort()).toEqual(inDump);
    });

    it("dumps every database whose name starts with the prefix, and refuses a prefix no database has", async () => {
      expect(summary(await searchAllServerDatabases(testPostgresUrl(), canaries, { namePrefix: name })).sort()).toEqual(inDump);
      await expect(searchAllServerDatabases(testPostgresUrl(), canaries, { namePrefix: `${name}_none` })).rejects.toThrow(/no database/);
    });

    it("finds canaries in the data and headers of the messages a stream still stores, not in a deleted one", async () => {
      const findings = await searchNatsStreams(natsUrl, canaries, { streamPrefix: stream });
      expect(summary(findings).sort(), formatFindings(findings)).toEqual(
        [`${address} plain ||${stream}|1|data`, `${firstName} plain ||${stream}|1|headers`, `${inBytes} base64 ||${stream}|3|data`].sort(),
      );
      await expect(searchNatsStreams(natsUrl, canaries, { streamPrefix: `${stream}_NONE` })).rejects.toThrow(/no stream/);
    });
  },
);

describe("searchFiles", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "tidings-canary-"));
    await mkdir(join(dir, "blobs", "ab"), { recursive: true });
    await writeFile(join(dir, "api.log"), `{"msg":"request","path":"/contacts/${encodeURIComponent(address)}"}\n`);
    await writeFile(join(dir, "blobs", "ab", "cdef"), gzipSync(`name,email\n${firstName},someone@example.com\n`));
    // Starts like gzip but is not: read as it is.
    await writeFile(join(dir, "blobs", "ab", "raw"), Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from(inBytes)]));
    await writeFile(join(dir, "blobs", "unrelated"), "nothing personal");
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("finds canaries in every file under the directory, gunzipping gzip files, naming each file", async () => {
    const findings = await searchFiles(dir, canaries);
    expect(findings.map((f) => `${f.canary} ${f.kind} ${f.where.path}`).sort()).toEqual(
      [
        `${address} url ${join(dir, "api.log")}`,
        `${firstName} plain ${join(dir, "blobs", "ab", "cdef")}`,
        `${inBytes} plain ${join(dir, "blobs", "ab", "raw")}`,
      ].sort(),
    );
  });
});

async function createServerDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(testPostgresUrl());
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
