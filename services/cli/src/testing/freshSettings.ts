import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBase62 } from "@tidings/core";
import { createTestDatabase, testMode } from "@tidings/postgres";
import { freePort } from "@tidings/testkit";
import { seedMigratedDatabase } from "./migratedDataDir.js";

/**
 * The settings of a fresh installation in the tier's mode, `env` over them: a DATA_DIR of its own (in
 * embedded mode a migrated database in it, `seedMigratedDatabase`), a port, a bootstrap token, and in
 * server mode a database of its own, NATS under a fresh prefix and a secret. `cleanup` gets what undoes them.
 */
export async function freshSettings(env: Record<string, string>, cleanup: (undo: () => Promise<void> | void) => void) {
  const dataDir = mkdtempSync(join(tmpdir(), "tidings-cli-"));
  cleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const base: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    TIDINGS_BOOTSTRAP_TOKEN: `re_${randomBase62(40)}`,
    // Tests read right after they write: a write waits for its projections as long as a loaded machine needs
    // (a domain created through a served api was once not listed 2 s later, the default).
    READ_YOUR_WRITES_TIMEOUT_MS: "60000",
  };
  if (testMode() !== "server") {
    await seedMigratedDatabase(dataDir);
    return { ...base, ...env };
  }
  const test = await createTestDatabase();
  cleanup(() => test.dispose());
  return {
    ...base,
    EVENTSTORE_URL: test.url,
    TIDINGS_SECRET: randomBase62(40),
    NATS_URL: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
    NATS_PREFIX: `c${randomBase62(10)}`,
    ...env,
  };
}
