import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataDirLockedError, createLogger, loadConfig } from "@tidings/core";
import { testMode } from "@tidings/postgres";
import { adminFile, readAdminAddress, startAdminChannel } from "./adminChannel.js";
import { forwardToServing } from "./forwardCommand.js";
import { runCommand } from "./main.js";
import { openRuntime, type Runtime } from "./runtime.js";
import { seedMigratedDatabase } from "./testing/migratedDataDir.js";

const logger = createLogger("silent");
const dataDir = mkdtempSync(join(tmpdir(), "tidings-channel-"));
let runtime: Runtime;
let channel: { close(): Promise<void> };

/** What a forwarded command printed, and its exit code. */
async function forwarded(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await forwardToServing(
    dataDir,
    argv,
    { out: (line) => void out.push(line), err: (line) => void err.push(line) },
    new DataDirLockedError("held"),
  );
  return { code, out, err };
}

if (testMode() === "server") console.warn("admin channel tests skipped in server mode: only an embedded DATA_DIR has one");

describe.skipIf(testMode() === "server")("the admin channel of an embedded serving process", () => {
  beforeAll(async () => {
    await seedMigratedDatabase(dataDir);
    runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir }), logger);
    channel = await startAdminChannel(runtime.dataDir!, (argv, out) => runCommand(argv, runtime, out), logger);
  }, 120_000);
  afterAll(async () => {
    await channel?.close();
    await runtime?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs a command on the serving process's stores and gives back its lines and exit code", async () => {
    const listed = await forwarded("projections", "status", "--json");
    expect(listed.code).toBe(0);
    expect(listed.out.map((line) => (JSON.parse(line) as { name: string }).name)).toContain("emails");
    expect(await forwarded("projections", "verify", "nope")).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/^tidings: no projection named "nope"/)],
    });
    expect(await forwarded("serve")).toMatchObject({
      code: 2,
      err: ["tidings: serve runs in a process of its own, not inside a serving one"],
    });
  }, 60_000);

  it("answers only a request with its token", async () => {
    const { port, token } = readAdminAddress(dataDir)!;
    const post = (authorization: string, body = JSON.stringify({ argv: ["status"] })) =>
      fetch(`http://127.0.0.1:${port}/commands`, { method: "POST", headers: { authorization }, body });
    expect((await post("Bearer nope")).status).toBe(401);
    expect((await post(`Bearer ${token}`, "not json")).status).toBe(400);
    expect((await fetch(`http://127.0.0.1:${port}/other`, { method: "POST", headers: { authorization: `Bearer ${token}` } })).status).toBe(
      404,
    );
  });

  it("gives up on a channel file that names nobody listening, with the lock's message", async () => {
    const other = mkdtempSync(join(tmpdir(), "tidings-channel-stale-"));
    try {
      writeFileSync(adminFile(other), JSON.stringify({ pid: 1, port: 1, token: "x" }));
      const failed = await forwardToServing(
        other,
        ["status"],
        { out: () => {}, err: () => {} },
        new DataDirLockedError("in use by 1"),
        500,
      ).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(DataDirLockedError);
      expect((failed as Error).message).toMatch(/^in use by 1 \(it takes no commands: .*admin\.json names no channel that answers\)$/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
