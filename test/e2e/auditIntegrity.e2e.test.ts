import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Resend } from "resend";
import { testMode } from "@tidings/postgres";
import { startTestServer, type TestServer } from "../support/testServer.js";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");
const run = promisify(execFile);

let server: TestServer;
let dir = "";
let keyId = "";

/** The CLI as an auditor runs it; resolves with the exit code instead of rejecting on a non-zero one. */
async function tidings(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH, ...server.env, LOG_LEVEL: "warn" },
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof code !== "number") throw error;
    return { code, stdout: stdout ?? "", stderr: stderr ?? "" };
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-audit-"));
  server = await startTestServer();
  const resend = new Resend(server.token, { baseUrl: server.url });
  for (const name of ["first", "second", "third"]) {
    const created = await resend.apiKeys.create({ name });
    keyId = created.data!.id;
  }
  // An embedded data directory has one owner at a time: the server steps aside for the CLI.
  if (testMode() === "embedded") await server.serving.stop();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// Each command opens the stores anew, which on a loaded machine takes seconds for PGlite.
const timeout = { timeout: 300_000 };

describe("tidings audit verify, seal and export", () => {
  let publicKey = "";

  it("seals on demand and prints the key the seal verifies with", timeout, async () => {
    const sealed = await tidings("audit", "seal");
    expect(sealed.code).toBe(0);
    expect(sealed.stdout).toMatch(/^seal #\d+ covers \d+ events/m);
    publicKey = /public key ([0-9a-f]{64})/.exec(sealed.stdout)?.[1] ?? "";
    expect(publicKey).toHaveLength(64);
    expect((await tidings("audit", "public-key")).stdout.trim()).toBe(publicKey);
  });

  it("verifies the store and says what no seal covers yet", timeout, async () => {
    const result = await tidings("audit", "verify", "--json");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { ok: boolean; seals: number; events: number; pinnedKey: boolean };
    expect(report).toMatchObject({ ok: true, pinnedKey: true });
    expect(report.seals).toBeGreaterThanOrEqual(1);
    expect(report.events).toBeGreaterThan(3);
    const text = await tidings("audit", "verify");
    expect(text.stdout).toMatch(/^intact: \d+ events/);
    const stream = await tidings("audit", "verify", "--stream", `apikey-${keyId}`);
    expect(stream.code).toBe(0);
  });

  it("exports the store and checks the export offline, finding a line changed in it", timeout, async () => {
    const file = join(dir, "export.jsonl");
    const exported = await tidings("audit", "export", "--out", file);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/resume with --from \d+\/\d+/);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(JSON.parse(lines[0]!)).toMatchObject({ tidingsAuditExport: 1, category: null });
    expect(JSON.parse(lines[1]!)).toMatchObject({ hash: expect.stringMatching(/^[0-9a-f]{64}$/), position: expect.any(String) });

    const checked = await tidings("audit", "verify", "--file", file, "--public-key", publicKey);
    expect(checked.stdout).toMatch(/^intact/);
    expect(checked.code).toBe(0);

    const index = lines.findIndex((line) => line.includes(`"apikey-${keyId}"`));
    const changed = JSON.parse(lines[index]!) as { data: Record<string, unknown>; streamId: string };
    changed.data.name = "mallory";
    writeFileSync(file, [...lines.slice(0, index), JSON.stringify(changed), ...lines.slice(index + 1)].join("\n") + "\n");
    const broken = await tidings("audit", "verify", "--file", file, "--public-key", publicKey);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`BROKEN (changed) stream apikey-${keyId}`);
  });

  it("exports one category, resumably, and says what such an export cannot vouch for", timeout, async () => {
    const file = join(dir, "apikeys.jsonl");
    const first = await tidings("audit", "export", "--category", "apikey", "--out", file);
    expect(first.code).toBe(0);
    const checked = await tidings("audit", "verify", "--file", file, "--public-key", publicKey);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain("cannot vouch: the export holds only categories apikey");
    const resumeFrom = /resume with --from (\d+\/\d+)/.exec(first.stderr)?.[1];
    const resumed = await tidings("audit", "export", "--category", "apikey", "--from", resumeFrom!, "--out", file);
    expect(resumed.stderr).toContain("done: 0 events");
  });

  it("refuses a position that is not one", timeout, async () => {
    const result = await tidings("audit", "export", "--from", "yesterday");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--from must be a position");
  });
});
