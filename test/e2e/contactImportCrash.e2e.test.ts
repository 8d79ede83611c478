import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { connect } from "nats";
import { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { serve, type Serving } from "@tidings/cli";
import { raiseBootstrapTeamRateLimit } from "../support/rateLimit.js";
import { succeeded } from "../support/wire.js";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const serverMode = testMode() === "server";
if (!serverMode)
  console.warn("contact import crash test skipped in embedded mode: it kills a separate sagas process, which an embedded data directory does not admit; it runs with TIDINGS_TEST_MODE=server");

/**
 * Issue 6: an import whose sagas process is SIGKILLed past its first checkpoint (500 rows) and started
 * again finishes with exact counts, the same row errors, and one contact per address.
 */
describe.skipIf(!serverMode)("a contact import with the sagas process killed mid-import", () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  const servings: Serving[] = [];
  let sagas: ChildProcess | undefined;

  const startSagasProcess = () => spawn(process.execPath, [cli, "serve", "--role", "sagas"], { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "ignore", "inherit"] });
  const kill = async (child: ChildProcess) => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };

  beforeAll(async () => {
    database = await createTestDatabase({ mode: "server" });
    await database.database.close();
    env = {
      PORT: String(await freePort()),
      LOG_LEVEL: "warn",
      TIDINGS_BOOTSTRAP_TOKEN: `re_${randomBase62(40)}`,
      EVENTSTORE_URL: database.url,
      DATABASE_URL: database.url,
      NATS_URL: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
      NATS_PREFIX: `i${randomBase62(10)}`,
      TIDINGS_SECRET: randomBase62(40),
      // One row at a time: slow enough for the kill to land between the first checkpoint and the end.
      CONTACT_IMPORT_ROWS_IN_FLIGHT: "1",
    };
    const config = loadConfig(env);
    const logger = createLogger("warn");
    servings.push(await serve(config, logger, "projector"));
    servings.push(await serve(config, logger, "api"));
    await raiseBootstrapTeamRateLimit(servings[1]!.runtime);
  });
  afterAll(async () => {
    if (sagas && sagas.exitCode === null) await kill(sagas);
    for (const s of servings.reverse()) await s.stop();
    const nc = await connect({ servers: env.NATS_URL! });
    const jsm = await nc.jetstreamManager();
    for await (const stream of jsm.streams.list()) if (stream.config.name.startsWith(`${env.NATS_PREFIX}_`)) await jsm.streams.delete(stream.config.name);
    await nc.close();
    await database?.dispose();
  });

  it("ends with exact counts and no duplicate contact", { timeout: 180_000 }, async () => {
    const resend = new Resend(env.TIDINGS_BOOTSTRAP_TOKEN, { baseUrl: servings.find((s) => s.url)!.url });
    await succeeded(() => resend.contactProperties.create({ key: "seats", type: "number" }));
    // 1,200 good rows, 20 repeating earlier addresses, 10 with a bad `seats`: 1,230 rows.
    const rows = ["email,seats", ...Array.from({ length: 1200 }, (_, i) => `crash${i}@example.com,${i}`), ...Array.from({ length: 20 }, (_, i) => `crash${i * 7}@example.com,${i}`)];
    for (let i = 0; i < 10; i++) rows.push(`bad${i}@example.com,many`);
    const { id } = await succeeded(() =>
      resend.contacts.imports.create({ file: new Blob([rows.join("\n")]), columnMap: { email: "email", properties: { seats: { column: "seats", type: "number" } } }, onConflict: "upsert" }),
    );

    sagas = startSagasProcess();
    const progress = async () => (await succeeded(() => resend.contacts.imports.get(id))).counts.total;
    const deadline = Date.now() + 120_000;
    while ((await progress()) < 500) {
      if (Date.now() > deadline) throw new Error("the import made no checkpoint");
      await sleep(100);
    }
    // Past the first checkpoint, and some rows into the next stretch.
    await sleep(300);
    await kill(sagas);
    const atKill = await succeeded(() => resend.contacts.imports.get(id));
    expect(atKill.status).toBe("in_progress");

    sagas = startSagasProcess();
    let done = atKill;
    while (done.status !== "completed") {
      if (Date.now() > deadline) throw new Error(`the import is still ${done.status}`);
      await sleep(200);
      done = await succeeded(() => resend.contacts.imports.get(id));
    }
    expect(done.counts).toEqual({ total: 1230, created: 1200, updated: 20, skipped: 0, failed: 10 });
    expect((done as unknown as { errors: { line: number }[] }).errors.map((e) => e.line)).toEqual(Array.from({ length: 10 }, (_, i) => 1222 + i));
    const contacts = await succeeded(() => resend.contacts.list());
    expect(contacts.data).toHaveLength(1200);
    expect(new Set(contacts.data.map((c) => c.email)).size).toBe(1200);
  });
});
