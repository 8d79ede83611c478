import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { runCommand, serve, type Serving } from "@tidings/cli";
import { connect } from "nats";
import { freePort } from "@tidings/testkit";
import { seedMigratedDatabase } from "@tidings/cli/testing";

export interface TestServer {
  /** Base URL, e.g. for `new Resend(token, { baseUrl })`. */
  url: string;
  /** A full-access token of the server's first team (TIDINGS_BOOTSTRAP_TOKEN). */
  token: string;
  serving: Serving;
  /** The settings the server runs with, for a `tidings` child process to open the same stores. */
  env: Record<string, string>;
  /** Stops the server and drops its data. */
  stop(): Promise<void>;
}

/**
 * What a server-mode Tidings needs on a test database of its own: the stores there, NATS streams and
 * subjects under a fresh prefix beginning with `tag`, and a secret.
 */
export function serverModeStores(database: TestDatabase, tag: string): Record<string, string> {
  return {
    EVENTSTORE_URL: database.url,
    DATABASE_URL: database.url,
    NATS_URL: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
    NATS_PREFIX: `${tag}${randomBase62(10)}`,
    TIDINGS_SECRET: randomBase62(40),
  };
}

export { freePort } from "@tidings/testkit";

/**
 * A whole Tidings process (every role) for end-to-end tests, in the tier's mode: embedded (a PGlite data
 * directory of its own) or server (a database of its own on PostgreSQL, its own NATS streams). Nothing of
 * our own infrastructure is replaced: the test talks to it over HTTP only.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const token = `re_${randomBase62(40)}`;
  const port = await freePort();
  // Tests read right after they write: a write waits up to the longest READ_YOUR_WRITES_TIMEOUT_MS, since on
  // a loaded machine the projector can be more than the default 2 s behind.
  const base = {
    PORT: String(port),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
    TIDINGS_BOOTSTRAP_TOKEN: token,
    READ_YOUR_WRITES_TIMEOUT_MS: "60000",
    ...env,
  };
  // Server mode keeps no database in DATA_DIR, but the outbox transport still writes there.
  const dataDir = mkdtempSync(join(tmpdir(), "tidings-e2e-"));
  const removeDataDir = async () => rmSync(dataDir, { recursive: true, force: true });
  let cleanup: () => Promise<void>;
  let settings: Record<string, string>;
  if (testMode() === "server") {
    const database = await createTestDatabase({ mode: "server" });
    await database.database.close();
    settings = { ...base, DATA_DIR: dataDir, ...serverModeStores(database, "t") };
    cleanup = async () => {
      await database.dispose();
      await deleteNatsStreams(settings.NATS_URL!, settings.NATS_PREFIX!);
      await removeDataDir();
    };
  } else {
    settings = { ...base, DATA_DIR: dataDir };
    await seedMigratedDatabase(dataDir);
    cleanup = removeDataDir;
  }
  const config = loadConfig(settings);
  const serving = await serve(config, createLogger(config.LOG_LEVEL), "all", { commands: runCommand });
  return {
    url: serving.url!,
    token,
    serving,
    env: settings,
    async stop() {
      await serving.stop();
      await cleanup();
    },
  };
}

/** JetStream streams outlive the test; drop the ones a server's prefix created. */
export async function deleteNatsStreams(url: string, prefix: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await nc.jetstreamManager();
    for await (const stream of jsm.streams.list()) {
      if (stream.config.name.startsWith(`${prefix}_`)) await jsm.streams.delete(stream.config.name);
    }
  } finally {
    await nc.close();
  }
}
