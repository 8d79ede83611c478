import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { Resend } from "resend";
import { testMode } from "@tidings/postgres";
import { productProjections } from "@tidings/projections";
import { raiseBootstrapTeamRateLimit } from "../support/rateLimit.js";
import { startTestServer, type TestServer } from "../support/testServer.js";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");
const run = promisify(execFile);

let server: TestServer;
let resend: Resend;

/**
 * The CLI as an operator runs it, beside a serving Tidings: in embedded mode the command goes to the
 * serving process (it alone may open DATA_DIR), in server mode it opens the stores itself.
 */
const tidings = (...args: string[]) =>
  run(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH, ...server.env, LOG_LEVEL: "warn" }, timeout: 300_000 }).then(
    (done) => ({ code: 0, ...done }),
    (failed: { code: number; stdout: string; stderr: string }) => failed,
  );

async function ok<T>(call: PromiseLike<{ data: T | null; error: { message: string } | null }>): Promise<T> {
  const { data, error } = await call;
  if (error) throw new Error(error.message);
  return data!;
}

const known = { domains: 4, templates: 4, contacts: 6, emails: 6 };

/** Each list as a client reads it: how many items it answered, or why it did not. */
async function listAll(): Promise<Record<keyof typeof known, number | string>> {
  const count = async (call: Promise<{ data: { data: unknown[] } | null; error: { message: string } | null }>) => {
    const { data, error } = await call;
    return error ? `error: ${error.message}` : data!.data.length;
  };
  const [domains, templates, contacts, emails] = await Promise.all([
    count(resend.domains.list({ limit: 100 })),
    count(resend.templates.list({ limit: 100 })),
    count(resend.contacts.list({ limit: 100 })),
    count(resend.emails.list({ limit: 100 })),
  ]);
  return { domains, templates, contacts, emails };
}

beforeAll(async () => {
  server = await startTestServer({ TIDINGS_ALLOW_UNVERIFIED_FROM: "true" });
  await raiseBootstrapTeamRateLimit(server.serving.runtime);
  resend = new Resend(server.token, { baseUrl: server.url });
  for (let i = 0; i < known.domains; i++) await ok(resend.domains.create({ name: `live${i}.example.test` }));
  for (let i = 0; i < known.templates; i++)
    await ok(resend.templates.create({ name: `live ${i}`, subject: "Hi", html: "<p>Hi</p>", from: "Acme <hello@acme.test>" }));
  for (let i = 0; i < known.contacts; i++) await ok(resend.contacts.create({ email: `live${i}@example.test` }));
  for (let i = 0; i < known.emails; i++)
    await ok(resend.emails.send({ from: "Acme <hello@acme.test>", to: `to${i}@example.test`, subject: `n${i}`, html: "<p>x</p>" }));
  expect(await listAll()).toEqual(known);
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

describe(`projections rebuild and verify while Tidings serves (${testMode()} mode)`, () => {
  it("rebuild --all switches every projection while the lists keep answering 200 with every item", async () => {
    const rounds: Record<string, number | string>[] = [];
    let rebuilding = true;
    const poller = (async () => {
      while (rebuilding) rounds.push(await listAll());
    })();
    const rebuilt = await tidings("projections", "rebuild", "--all", "--json").finally(() => (rebuilding = false));
    await poller;
    expect(rebuilt.stderr).toBe("");
    expect(rebuilt.code).toBe(0);
    const lines = rebuilt.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; projection: string; checksum?: string });
    expect(lines.filter((l) => l.type === "rebuilt").map((l) => l.projection)).toEqual([
      ...productProjections.map((p) => p.name),
      "streams",
    ]);
    expect(lines.filter((l) => l.type === "progress").length).toBeGreaterThanOrEqual(productProjections.length);
    for (const l of lines.filter((l) => l.type === "rebuilt")) expect(l.checksum).toMatch(/^[0-9a-f]{32}$/);
    console.log(`${rounds.length} rounds of four lists during rebuild --all`);
    expect(rounds.length).toBeGreaterThanOrEqual(5);
    expect(rounds.filter((r) => JSON.stringify(r) !== JSON.stringify(known))).toEqual([]);

    const status = await tidings("projections", "status", "--json");
    const statuses = status.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { name: string; lastRebuild?: { outcome: string; events: number } });
    for (const s of statuses) expect(s.lastRebuild).toMatchObject({ outcome: "ok", events: expect.any(Number) });
  }, 600_000);

  it("verify names a read-model row changed by hand, exits 1, and passes again once the projection is rebuilt", async () => {
    const equal = await tidings("projections", "verify", "domains");
    expect(equal).toMatchObject({ code: 0 });
    expect(equal.stdout).toMatch(/^domains: equal to a replay of \d+ events at \d+\/\d+/);

    const { rows } = await sql<{ id: string; name: string }>`SELECT id, name FROM domains ORDER BY name LIMIT 1`.execute(
      server.serving.runtime.database.db,
    );
    const [row] = rows;
    await sql`UPDATE domains SET name = 'changed-by-hand.test' WHERE id = ${row!.id}`.execute(server.serving.runtime.database.db);

    const differs = await tidings("projections", "verify", "domains", "templates");
    expect(differs.code).toBe(1);
    expect(differs.stdout).toContain("domains: 1 rows differ from a replay");
    expect(differs.stdout).toContain(`domains (id="${row!.id}"): name live "changed-by-hand.test" replay "${row!.name}"`);
    expect(differs.stdout).toMatch(/templates: equal to a replay/);

    const json = await tidings("projections", "verify", "domains", "--json");
    expect(json.code).toBe(1);
    const verified = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; differences?: number; rows?: { key: object; columns: object }[] })
      .find((l) => l.type === "verified")!;
    expect(verified).toMatchObject({
      differences: 1,
      rows: [{ key: { id: row!.id }, columns: { name: { live: "changed-by-hand.test" } } }],
    });

    const status = await tidings("projections", "status");
    expect(status.stdout).toMatch(/domains .* differs \(1 rows\)/);

    expect(await tidings("projections", "rebuild", "domains")).toMatchObject({ code: 0 });
    expect(await tidings("projections", "verify", "domains")).toMatchObject({ code: 0 });
    expect(await listAll()).toEqual(known);
  }, 600_000);
});
