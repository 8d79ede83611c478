import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testMode } from "@tidings/postgres";
import { freePort } from "../support/testServer.js";

/** `npm start` is `tsc -b && tidings serve`; npm test builds first, so this runs the built CLI as npm start would. */
const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");
const dataDir = mkdtempSync(join(tmpdir(), "tidings-start-"));
/**
 * A first start runs initdb and every migration, and prints its key only once the projector has applied it;
 * beside the whole suite and a CPU hog that took over 60 s.
 */
const startPatienceMs = 300_000;

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

async function start(env: Record<string, string> = {}): Promise<Started> {
  // A port the kernel handed out: a fixed range lies inside the ephemeral one, where another test's
  // outgoing connection can hold the port we pick.
  const port = await freePort();
  const child = spawn(process.execPath, [cli, "serve"], {
    // These tests ask for a clean stop, not a quick one (serveSigterm.e2e holds the bound): a starved CPU
    // once took the 8 s default to stop an idle embedded server.
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn", SHUTDOWN_TIMEOUT_MS: "60000", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    // A process that did not start in time is not left behind holding DATA_DIR for the tests after it.
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no start within ${startPatienceMs / 1000} s:\n${out}`));
    }, startPatienceMs);
    const check = () => {
      const m = /Tidings is serving (\S+)/.exec(out);
      // The dashboard's line is the last of the start-up lines, each a write of its own that can come apart.
      if (m && out.includes("Dashboard: ")) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, output: () => out });
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited with ${code}:\n${out}`), { output: out, code }));
    });
  });
}

function stop(started: Started): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.once("exit", (code) => resolve(code));
    started.child.kill("SIGTERM");
  });
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

if (testMode() === "server")
  console.warn("tidings serve (embedded) e2e skipped in server mode: it tests the embedded defaults of npm start");

describe.skipIf(testMode() === "server")("tidings serve on embedded defaults", () => {
  let firstToken = "";

  it(
    "serves /health, prints the URL and a first API key, and keeps its data in DATA_DIR",
    { timeout: startPatienceMs + 60_000 },
    async () => {
      const first = await start();
      try {
        expect((await fetch(`${first.url}/health`)).status).toBe(200);
        const token = /First API key \(shown once, keep it\): (re_[0-9A-Za-z]{32,})/.exec(first.output());
        expect(token).not.toBeNull();
        firstToken = token![1]!;
        expect(first.output()).toContain(`Dashboard: ${first.url}/dashboard (sign in with the key above)`);
        const dashboard = await fetch(`${first.url}/dashboard`, { redirect: "manual" });
        expect([dashboard.status, dashboard.headers.get("location")]).toEqual([303, "/dashboard/sign-in"]);
        const keys = await fetch(`${first.url}/api-keys`, { headers: { authorization: `Bearer ${firstToken}` } });
        expect(keys.status).toBe(200);
        expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(["pglite", "secret", "tidings.pid"]));
      } finally {
        expect(await stop(first), first.output()).toBe(0);
      }
      expect(readdirSync(dataDir)).not.toContain("tidings.pid");
    },
  );

  it("reuses the data on a second start: no new key, and the first key still works", { timeout: startPatienceMs + 60_000 }, async () => {
    const second = await start();
    try {
      expect(second.output()).not.toContain("First API key");
      expect(second.output()).toContain(`Dashboard: ${second.url}/dashboard (sign in with a full-access API key`);
      const keys = await fetch(`${second.url}/api-keys`, { headers: { authorization: `Bearer ${firstToken}` } });
      expect(keys.status).toBe(200);
      const body = (await keys.json()) as { data: { name: string }[] };
      expect(body.data).toHaveLength(1);
    } finally {
      expect(await stop(second), second.output()).toBe(0);
    }
  });

  it("refuses a second process on the same data directory with one clear line", async () => {
    const owner = await start();
    try {
      const refused = await start().then(
        (s) => (s.child.kill("SIGKILL"), "started"),
        (e: { output?: string; code?: number }) => e,
      );
      expect(refused).toMatchObject({ code: 2 });
      expect((refused as { output: string }).output.trim()).toMatch(/^tidings: .* is in use by process \d+; stop it or set DATA_DIR/);
    } finally {
      expect(await stop(owner), owner.output()).toBe(0);
    }
  });

  it("stops start-up with one line naming a wrong setting", async () => {
    const failed = await start({ PORT: "not-a-port" }).catch((e: { output: string; code: number }) => e);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { output: string }).output.trim()).toBe(
      'tidings: PORT must be an integer from 1 to 65535 (default 3000); got "not-a-port"',
    );
  });
});
