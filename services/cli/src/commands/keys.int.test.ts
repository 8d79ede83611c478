import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger, loadConfig, sha256Hex, type Config } from "@tidings/core";
import { createTestDatabase, settledWrites, testMode, type TestDatabase } from "@tidings/postgres";
import { teamIdForName } from "@tidings/api";
import { openRuntime } from "../runtime.js";
import { seedMigratedDatabase } from "../testing/migratedDataDir.js";
import { keysCreate } from "./keys.js";

const logger = createLogger("silent");
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The settings of a fresh installation: a DATA_DIR of its own, or a database of its own in server mode. */
async function freshConfig(): Promise<Config> {
  if (testMode() === "server") {
    const test: TestDatabase = await createTestDatabase();
    cleanups.push(() => test.dispose());
    return loadConfig({ EVENTSTORE_URL: test.url, TIDINGS_SECRET: "s".repeat(32) });
  }
  const dir = mkdtempSync(join(tmpdir(), "tidings-keys-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  await seedMigratedDatabase(dir);
  return loadConfig({ DATA_DIR: dir });
}

describe("tidings keys create", () => {
  it("creates the team and a key, and prints only the token on stdout", async () => {
    const config = await freshConfig();
    const printed: string[] = [];
    const said: string[] = [];
    const out = { out: (line: string) => void printed.push(line), err: (line: string) => void said.push(line) };
    const creating = await openRuntime(config, logger);
    try {
      expect(await keysCreate(creating, { team: "acme", permission: "sending_access", name: "ci" }, out)).toBe(0);
    } finally {
      await creating.close();
    }
    expect(printed).toHaveLength(1);
    expect(said).toEqual([expect.stringMatching(/^created API key \S+ \(sending_access\) for team "acme"/)]);
    const token = printed[0]!;
    expect(token).toMatch(/^re_[0-9A-Za-z]{40}$/);

    const runtime = await openRuntime(config, logger);
    try {
      await settledWrites(runtime.database);
      const events = await runtime.store.readAll({ filter: { streamCategory: ["team", "apikey"] } });
      expect(events.map((e) => e.type)).toEqual(["TeamCreated", "ApiKeyCreated"]);
      expect(events[1]!.data).toMatchObject({
        teamId: teamIdForName("acme"),
        name: "ci",
        permission: "sending_access",
        tokenHash: sha256Hex(token),
      });
    } finally {
      await runtime.close();
    }
  }, 180_000);

  it("refuses a missing team or an unknown permission with a one-line usage error", async () => {
    const runtime = await openRuntime(await freshConfig(), logger);
    const out = { out: () => {}, err: () => {} };
    try {
      await expect(keysCreate(runtime, {}, out)).rejects.toThrow("keys create needs --team <name>");
      await expect(keysCreate(runtime, { team: "acme", permission: "root" }, out)).rejects.toThrow(
        "--permission must be one of full_access, sending_access",
      );
    } finally {
      await runtime.close();
    }
  });
});
