import { setFlagsFromString } from "node:v8";
import { Kysely, PostgresDialect } from "kysely";
import type pg from "pg";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGliteDialect } from "kysely-pglite-dialect";
import { initialiseDataDir } from "./initialiseDataDir.js";
import { shareArrayParsers } from "./pgliteParsers.js";
import { preparingPool } from "./preparingPool.js";
import { quoteIdent } from "./quoteIdent.js";
import { resumingListen } from "./resumingListen.js";
import { StatementNames } from "./statementNames.js";

/**
 * One handle on PostgreSQL, whether it is a server reached through `pg` or PGlite embedded in this
 * process. Everything that keeps state in SQL (event store, bus, read models) goes through it, so the
 * same code runs in embedded and server mode.
 *
 * Bigint columns (positions, counts) must be selected as text: `pg` returns int8 as a string and PGlite
 * as a lossy JS number.
 */
export interface Database {
  readonly kind: "pglite" | "postgres";
  /** For SQL written with kysely's `sql` tag; a query builder over known tables comes from `tables`. */
  readonly db: Kysely<unknown>;
  /**
   * The same connection, typed for a set of tables: the read models (`readModels` in projections), or a
   * package's own tables (the bus's, the api's, the sagas'). Each owner declares the tables it created.
   */
  tables<Tables>(): Kysely<Tables>;
  /** Runs SQL text that may hold several statements (migrations, functions). */
  exec(text: string): Promise<void>;
  /** Calls `onNotify` for each NOTIFY on `channel`, delivered after commit. Resolves to an unlisten function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Takes a session-level advisory lock, or returns undefined when another holder, in this process or
   * another, has it. A server database holds all of a process's locks on one connection kept for them.
   * Used to keep one instance of a projection or forwarder.
   */
  tryLock(name: string): Promise<HeldLock | undefined>;
  close(): Promise<void>;
}

export interface HeldLock {
  release(): Promise<void>;
}

export interface OpenOptions {
  /** `postgres://…`, or a PGlite location: a directory path, or `memory://` for a throw-away instance. */
  url: string;
  /** Pool size for a server connection. */
  poolSize?: number;
  /**
   * Server only: send the statements run over and over as named (prepared) statements (default true).
   * Off for a pooler that does not keep them per client, such as PgBouncer in transaction mode before 1.21.
   */
  preparedStatements?: boolean;
  /** PGlite only: a `dumpDataDir()` tarball to start a new database from, instead of running initdb. */
  initialData?: Blob;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  return isPostgresUrl(options.url)
    ? openServer(options.url, options.poolSize ?? 10, options.preparedStatements ?? true)
    : openEmbedded(options.url, options.initialData);
}

async function openServer(url: string, poolSize: number, preparedStatements: boolean): Promise<Database> {
  // Loaded here: an embedded process never uses the client, about 2 MB of heap and 7 MB resident.
  const { Pool, Client } = (await import("pg")).default;
  // A prepared statement is still planned for its values on every execution: a generic plan made while
  // a table was new (and unanalysed) would be kept as the table grew, a scan where an index belongs.
  const pool = new Pool({
    connectionString: url,
    max: poolSize,
    ...(preparedStatements ? { options: "-c plan_cache_mode=force_custom_plan" } : {}),
  });
  // A client that loses its server must not crash the process, idle (the pool's "error") or checked out
  // between two statements of a transaction (the client's own "error", which pg only emits when no query
  // is running to take it): the next query reports it, and the pool drops the client when it comes back.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: preparedStatements ? preparingPool(pool, new StatementNames()) : pool }),
  });
  const dedicated = new Set<pg.Client>();
  const client = async () => {
    const c = new Client({ connectionString: url });
    c.on("error", () => {});
    await c.connect();
    dedicated.add(c);
    c.once("end", () => dedicated.delete(c));
    return c;
  };
  const end = async (c: pg.Client) => {
    dedicated.delete(c);
    await c.end().catch(() => {});
  };
  const locks = lockSession(client);
  const listening = new Set<() => Promise<void>>();
  return {
    kind: "postgres",
    db,
    tables: () => typedView(db),
    async exec(text) {
      await pool.query(text);
    },
    async listen(channel, onNotify) {
      const unlisten = await resumingListen(client, end, channel, onNotify);
      listening.add(unlisten);
      return async () => {
        listening.delete(unlisten);
        await unlisten();
      };
    },
    tryLock: (name) => locks.tryLock(name),
    async close() {
      await Promise.all([...listening].map((unlisten) => unlisten()));
      await Promise.all([...dedicated].map(end));
      await db.destroy();
    },
  };
}

/**
 * Every advisory lock of a process on one connection: a session can hold any number of them, and a
 * connection per lock was 16 for the projector alone. A session takes its own lock again without
 * waiting, so the names held here keep a second holder in this process out. When the connection fails,
 * the server has released all its locks: the next tryLock opens a new one.
 */
function lockSession(client: () => Promise<pg.Client>) {
  // Each name's current holding and its connection, so a holding the connection lost cannot release a
  // newer one, and a late "end" after "error" clears only what was held on that connection.
  const held = new Map<string, { session?: pg.Client }>();
  let session: Promise<pg.Client> | undefined;
  // One query at a time on the session: pg 8 queues concurrent ones with a deprecation warning, pg 9 refuses them.
  let queue: Promise<unknown> = Promise.resolve();
  const query = <T>(c: pg.Client, text: string, name: string) => {
    const run = queue.then(() => c.query<T & pg.QueryResultRow>(text, [name]));
    queue = run.catch(() => {});
    return run;
  };
  const connected = () => {
    if (session) return session;
    const opening: Promise<pg.Client> = client().then(
      (c) => {
        const lost = () => {
          if (session === opening) session = undefined;
          for (const [name, holding] of held) if (holding.session === c) held.delete(name);
        };
        c.once("error", lost);
        c.once("end", lost);
        return c;
      },
      (error: unknown) => {
        if (session === opening) session = undefined;
        throw error;
      },
    );
    session = opening;
    return opening;
  };
  return {
    async tryLock(name: string): Promise<HeldLock | undefined> {
      if (held.has(name)) return undefined;
      const holding: { session?: pg.Client } = {};
      held.set(name, holding);
      try {
        const c = await connected();
        holding.session = c;
        const { rows } = await query<{ ok: boolean }>(c, "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", name);
        if (!rows[0]?.ok) {
          if (held.get(name) === holding) held.delete(name);
          return undefined;
        }
        return {
          async release() {
            if (held.get(name) !== holding) return;
            held.delete(name);
            await query(c, "SELECT pg_advisory_unlock(hashtextextended($1, 0))", name).catch(() => {});
          },
        };
      } catch (error) {
        if (held.get(name) === holding) held.delete(name);
        throw error;
      }
    },
  };
}

/**
 * PGlite's PostgreSQL runs with initdb's sizing, made for a server with a machine to itself: 128 MB of shared
 * buffers and room for 100 connections. In WebAssembly that shared memory is zeroed at start, so all of it was
 * resident (147 MB of the idle process's memory), and a WebAssembly memory never shrinks. One embedded
 * process has one session; its data files stay in the OS page cache, so a page missing from the buffers
 * costs a read, not a disk seek. Given on the command line, these win over DATA_DIR's postgresql.conf.
 */
const embeddedSettings = ["shared_buffers=16MB", "max_connections=10"];

/**
 * V8 runs PostgreSQL's WebAssembly (10 MB of it) with its baseline compiler, Liftoff, and recompiles the
 * functions that run often with its optimising one, TurboFan, on background threads. Those recompilations
 * stayed resident: an idle embedded process held about 85 MB more with them than without (300 against
 * 214 MB). Queries ran no slower without them: 6,000 inserts and 2,000 lookups took 15–28 s against 22–50 s
 * with them (load 6–8 on 2 cores), whose compilations took cores the queries wanted. The flag is read when
 * a module compiles, so it is set before PGlite compiles its own; it covers the process's other modules too.
 */
const wasmBaselineOnly = "--liftoff-only";

async function openEmbedded(location: string, initialData: Blob | undefined): Promise<Database> {
  setFlagsFromString(wasmBaselineOnly);
  const startParams = [...PGlite.defaultStartParams, ...embeddedSettings.flatMap((setting) => ["-c", setting])];
  const options = {
    // The extensions the read models' indexes use (projections' migration 0003), bundled with PGlite.
    extensions: { pg_trgm },
    startParams,
    ...(initialData && { loadDataDir: initialData }),
  };
  const inDirectory = location !== "memory://";
  if (inDirectory && !initialData) await initialiseDataDir(location, startParams);
  const pglite = inDirectory ? new PGlite(location, options) : new PGlite(options);
  await pglite.waitReady;
  await shareArrayParsers(pglite);
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  // PGlite is a single session, so a session advisory lock would always succeed; the lock file on
  // DATA_DIR already keeps other processes out, and this set keeps duplicate holders out of this one.
  const held = new Set<string>();
  return {
    kind: "pglite",
    db,
    tables: () => typedView(db),
    async exec(text) {
      // Holding kysely's connection queues this behind any open transaction on the single session.
      await db.connection().execute(async () => {
        await pglite.exec(text);
      });
    },
    async listen(channel, onNotify) {
      // Queued like exec: a LISTEN issued inside someone's open transaction would be undone by its rollback.
      return db.connection().execute(() => pglite.listen(channel, onNotify));
    },
    async tryLock(name) {
      if (held.has(name)) return undefined;
      held.add(name);
      return { release: async () => void held.delete(name) };
    },
    async close() {
      await db.destroy();
    },
  };
}

/**
 * A table set's view of the connection: kysely's types describe the tables a query may name and nothing
 * at run time, so every view is the one instance (`withTables` would build a new one per call).
 */
const typedView = <Tables>(db: Kysely<unknown>) => db as unknown as Kysely<Tables>;

export { quoteIdent };
