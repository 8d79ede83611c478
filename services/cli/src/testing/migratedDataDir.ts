import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { runCommand } from "../main.js";
import { openRuntime } from "../runtime.js";

let migrated: Promise<string> | undefined;

/**
 * An embedded server on a new DATA_DIR spends most of its start on PGlite's initdb and the schemas'
 * migrations: 14 s of a 17 s start on a loaded machine, and initdb alone about 10 CPU-s in a process of its
 * own. A test worker migrates one data directory once (what `tidings migrate` does, which keeps no
 * secret-bound rows) and each embedded installation a test makes starts from a copy of it; it still runs
 * every migration, and finds each applied. A test of the very first start (`test/e2e/cli.e2e.test.ts`)
 * starts on an empty DATA_DIR instead.
 */
export async function seedMigratedDatabase(dataDir: string): Promise<void> {
  migrated ??= migrateOnce();
  cpSync(await migrated, join(dataDir, "pglite"), { recursive: true });
}

async function migrateOnce(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "tidings-migrated-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const config = loadConfig({ DATA_DIR: dir, TIDINGS_SECRET: randomBase62(40), LOG_LEVEL: "warn" });
  const runtime = await openRuntime(config, createLogger("warn"));
  try {
    const errors: string[] = [];
    const code = await runCommand(["migrate"], runtime, { out: () => {}, err: (line) => errors.push(line) });
    if (code !== 0) throw new Error(`tidings migrate failed: ${errors.join("\n")}`);
  } finally {
    await runtime.close();
  }
  return join(dir, "pglite");
}
