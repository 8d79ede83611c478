import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testMode } from "@tidings/postgres";
import { readAdminAddress } from "@tidings/cli";
import { seedMigratedDatabase } from "@tidings/cli/testing";
import { freePort } from "../support/testServer.js";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");
const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), "tidings-serving-"));

let serving: ChildProcess;
let url = "";
let output = "";

/** The CLI as an operator runs it on the same DATA_DIR while `tidings serve` holds it. */
const tidings = (...args: string[]) =>
  run(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: "warn" }, timeout: 120_000 }).then(
    (done) => ({ code: 0, ...done }),
    (failed: { code: number; stdout: string; stderr: string }) => failed,
  );

if (testMode() === "server") console.warn("CLI through a serving process skipped in server mode: only embedded mode needs it");

describe.skipIf(testMode() === "server")("the tidings command while an embedded tidings serve runs", () => {
  beforeAll(async () => {
    const port = await freePort();
    await seedMigratedDatabase(dataDir);
    serving = spawn(process.execPath, [cli, "serve"], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    serving.stdout!.on("data", (d) => (output += d));
    serving.stderr!.on("data", (d) => (output += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within 240 s:\n${output}`)), 240_000);
      serving.stdout!.on("data", () => {
        const m = /Tidings is serving (\S+)/.exec(output);
        if (!m) return;
        clearTimeout(timer);
        url = m[1]!;
        resolve();
      });
      serving.once("exit", (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
    });
  }, 300_000);
  afterAll(async () => {
    if (serving && serving.exitCode === null) {
      const exited = new Promise((resolve) => serving.once("exit", resolve));
      serving.kill("SIGTERM");
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs status, keys create and audit stream in the serving process", async () => {
    const status = await tidings("status", "--json");
    expect(status).toMatchObject({ code: 0, stderr: "" });
    const report = JSON.parse(status.stdout) as { projections: { name: string; state: string }[] };
    expect(report.projections.map((p) => p.state)).toContain("live");

    const created = await tidings("keys", "create", "--team", "acme", "--name", "ci");
    expect(created.code).toBe(0);
    expect(created.stdout.trim()).toMatch(/^re_[0-9A-Za-z]{40}$/);
    const keyId = /created API key (\S+)/.exec(created.stderr)![1]!;
    // The key works once the serving process's projector has applied it (keys.ts), which on a loaded
    // machine takes more than the moment between the command's exit and this request.
    const listed = async () => (await fetch(`${url}/api-keys`, { headers: { authorization: `Bearer ${created.stdout.trim()}` } })).status;
    await expect.poll(listed, { timeout: 30_000 }).toBe(200);

    const audit = await tidings("audit", "stream", `apikey-${keyId}`, "--json");
    expect(audit.code).toBe(0);
    const events = audit.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; metadata: { actor: string } });
    expect(events).toMatchObject([{ type: "ApiKeyCreated", metadata: { actor: "cli" } }]);
  }, 180_000);

  it("returns a command's usage error and exit code as the command would give them", async () => {
    const failed = await tidings("projections", "rebuild", "nope");
    expect(failed.code).toBe(2);
    expect(failed.stderr.trim()).toMatch(/^tidings: no projection named "nope"; known: /);
    expect((await tidings("teams", "set-rate-limit", "nobody", "5")).stderr.trim()).toBe('tidings: there is no team "nobody"');
  }, 300_000);

  it("keeps its channel to loopback, to its token, and off the public api", async () => {
    const address = readAdminAddress(dataDir)!;
    expect(address.pid).toBe(serving.pid);
    expect(statSync(join(dataDir, "admin.json")).mode & 0o777).toBe(0o600);
    const command = (authorization?: string) =>
      fetch(`http://127.0.0.1:${address.port}/commands`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ argv: ["status"] }),
      });
    expect((await command()).status).toBe(401);
    expect((await command(`Bearer ${address.token.slice(0, -1)}x`)).status).toBe(401);
    expect((await command(address.token)).status).toBe(401);
    const right = await command(`Bearer ${address.token}`);
    expect(right.status).toBe(200);
    expect((await right.text()).trim().split("\n").at(-1)).toBe('{"exit":0}');

    const publicApi = await fetch(`${url}/commands`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${address.token}` },
      body: JSON.stringify({ argv: ["status"] }),
    });
    expect(publicApi.status).not.toBe(200);

    const outside = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.family === "IPv4");
    if (!outside) console.warn("no non-loopback IPv4 interface on this machine: the refusal from outside is not exercised");
    else {
      const reached = await new Promise<string>((resolve) => {
        const socket = connect({ host: outside.address, port: address.port });
        socket.once("connect", () => (socket.destroy(), resolve("connected")));
        socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      });
      expect(reached).toBe("ECONNREFUSED");
    }
  }, 60_000);

  it("removes its channel file when it stops", async () => {
    const exited = new Promise<number | null>((resolve) => serving.once("exit", resolve));
    serving.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(readdirSync(dataDir)).not.toContain("admin.json");
  }, 60_000);
});
