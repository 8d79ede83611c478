import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, quoteIdent, type Database } from "./database.js";
import { pgliteTemplate } from "./pgliteTemplate.js";

/**
 * Test tiers run twice: embedded (PGlite) and server (PostgreSQL), chosen by TIDINGS_TEST_MODE, which
 * scripts/test.mjs sets. Each test file gets a database of its own, so files run in parallel.
 */
export type TestMode = "embedded" | "server";

export function testMode(): TestMode {
  return process.env.TIDINGS_TEST_MODE === "server" ? "server" : "embedded";
}

export const testPostgresUrl = () => process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  /** What `openDatabase` takes to open this same database again, e.g. from a child process. */
  url: string;
  database: Database;
  /** Opens one more handle on the same database (another "process" of the service). */
  reopen(): Promise<Database>;
  /** Closes every handle and drops the data. */
  dispose(): Promise<void>;
}

/**
 * A fresh database. `persistent` asks for a PGlite directory instead of memory, for tests that close and
 * reopen; server databases are always persistent.
 */
export async function createTestDatabase(options: { mode?: TestMode; persistent?: boolean } = {}): Promise<TestDatabase> {
  const mode = options.mode ?? testMode();
  const handles: Database[] = [];
  const track = async (url: string) => {
    const d = await openDatabase({ url });
    handles.push(d);
    return d;
  };
  const closeAll = () => Promise.all(handles.splice(0).map((h) => h.close().catch(() => {})));

  if (mode === "server") {
    // Loaded here, as openDatabase does: this module is in the package's index, which embedded processes load.
    const { Client } = (await import("pg")).default;
    const name = `tidings_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    const admin = new Client({ connectionString: testPostgresUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    await admin.end();
    const target = new URL(testPostgresUrl());
    target.pathname = `/${name}`;
    const url = target.toString();
    return {
      url,
      database: await track(url),
      reopen: () => track(url),
      async dispose() {
        await closeAll();
        const c = new Client({ connectionString: testPostgresUrl() });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
        await c.end();
      },
    };
  }

  const dir = options.persistent ? mkdtempSync(join(tmpdir(), "tidings-pglite-")) : undefined;
  const url = dir ?? "memory://";
  const first = await openDatabase({ url, initialData: await pgliteTemplate() });
  handles.push(first);
  return {
    url,
    database: first,
    async reopen() {
      if (!dir) throw new Error("an in-memory PGlite cannot be reopened; ask for a persistent test database");
      // PGlite loses writes when two instances share a directory (STACK-NOTES): close before reopening.
      await closeAll();
      return track(dir);
    },
    async dispose() {
      await closeAll();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
