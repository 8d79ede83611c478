import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Resend } from "resend";
import { productProjections } from "@tidings/projections";
import { sagaDurables } from "@tidings/sagas";
import { startTestServer, type TestServer } from "../support/testServer.js";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");
const run = promisify(execFile);

let server: TestServer;
let keyId = "";

/** The CLI as an operator runs it beside the server: in embedded mode its commands go to the serving process. */
const tidings = (...args: string[]) =>
  run(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH, ...server.env, LOG_LEVEL: "warn" }, timeout: 120_000 });

beforeAll(async () => {
  server = await startTestServer();
  const resend = new Resend(server.token, { baseUrl: server.url });
  const created = await resend.apiKeys.create({ name: "audited" });
  keyId = created.data!.id;
  const renamed = await resend.apiKeys.update(keyId, { name: "renamed" });
  if (renamed.error) throw new Error(renamed.error.message);
});
afterAll(async () => {
  await server?.stop();
});

describe("tidings operator commands", () => {
  it("audit stream prints each event of a stream with its metadata", async () => {
    const { stdout } = await tidings("audit", "stream", `apikey-${keyId}`, "--json");
    const events = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((e) => e.type)).toEqual(["ApiKeyCreated", "ApiKeyRenamed"]);
    expect(events[0]).toMatchObject({ revision: "0", id: expect.any(String), metadata: { teamId: expect.any(String) } });
    expect(events[0].metadata.actor).toMatch(/^api:/);
    expect(JSON.stringify(events)).not.toContain(server.token);
  }, 180_000);

  it("audit stream says so for a stream with no events", async () => {
    const { stdout } = await tidings("audit", "stream", "apikey-00000000-0000-4000-8000-000000000000");
    expect(stdout).toContain("has no events");
  }, 180_000);

  it("projections status shows every projection with its checkpoint and lag", async () => {
    const { stdout } = await tidings("projections", "status", "--json");
    const statuses = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(statuses.map((s) => s.name).sort()).toEqual([...productProjections.map((p) => p.name), "streams"].sort());
    for (const s of statuses) expect(s.checkpoint).toMatch(/^\d+\/\d+$/);
  }, 180_000);

  it("status shows the projections and, per saga consumer, its dead letters", async () => {
    const { stdout } = await tidings("status", "--json");
    const report = JSON.parse(stdout) as { projections: { name: string }[]; deadLetters: { durable: string; letters: unknown[] }[] };
    expect(report.projections.map((p) => p.name)).toContain("api_keys");
    expect(report.deadLetters.map((d) => d.durable)).toEqual(sagaDurables);
    for (const d of report.deadLetters) expect(d.letters).toEqual([]);
    const text = await tidings("status");
    expect(text.stdout).toMatch(/saga consumer\s+dead letters/);
  }, 180_000);

  it("projections rebuild prints progress and a checksum, and a second rebuild gives the same one", async () => {
    const first = await tidings("projections", "rebuild", "streams");
    expect(first.stderr).toMatch(/\d+ events\/s/);
    const checksum = /checksum ([0-9a-f]{32})/.exec(first.stdout)?.[1];
    expect(checksum).toBeDefined();
    const second = await tidings("projections", "rebuild", "streams");
    expect(/checksum ([0-9a-f]{32})/.exec(second.stdout)?.[1]).toBe(checksum);
  }, 180_000);

  it("names a wrong command or projection in one line and exits 2", async () => {
    const failed = await tidings("projections", "rebuild", "nope").catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr.trim()).toMatch(/^tidings: no projection named "nope"; known: /);
  }, 180_000);
});
