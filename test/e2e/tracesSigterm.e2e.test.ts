import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { seedMigratedDatabase } from "@tidings/cli/testing";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlpReceiver.js";
import { deleteNatsStreams, freePort, serverModeStores } from "../support/testServer.js";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");
const startPatienceMs = 300_000;

/**
 * `tidings serve` as deployed, a child process, with a batch delay no export reaches: the spans it holds
 * when SIGTERM comes are exported as it stops, under its role's service name (docs/operations.md, "Traces").
 * Server mode runs the api role alone (`tidings-api`); embedded mode every role in one process (`tidings`).
 */
describe("a serving process's spans on SIGTERM", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tidings-traces-sigterm-"));
  let receiver: OtlpReceiver;
  let database: TestDatabase | undefined;
  let stores: Record<string, string> = {};
  let child: ChildProcess | undefined;
  let output = "";

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    if (testMode() === "server") {
      database = await createTestDatabase({ mode: "server" });
      await database.database.close();
      stores = serverModeStores(database, "tr");
    } else await seedMigratedDatabase(dataDir);
  });
  afterAll(async () => {
    if (child?.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await receiver?.close();
    if (database) {
      await database.dispose();
      await deleteNatsStreams(stores.NATS_URL!, stores.NATS_PREFIX!);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    "exports them as it stops, named for the role",
    async () => {
      const port = await freePort();
      const role = testMode() === "server" ? "api" : "all";
      child = spawn(process.execPath, [cli, "serve", "--role", role], {
        env: {
          PATH: process.env.PATH,
          DATA_DIR: dataDir,
          PORT: String(port),
          LOG_LEVEL: "warn",
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          // Ten minutes: nothing is exported on the schedule while the test runs.
          OTEL_BSP_SCHEDULE_DELAY: "600000",
          ...stores,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));

      // A fresh data directory's projections all start first: on a loaded machine that took minutes.
      const deadline = Date.now() + startPatienceMs;
      let health: Response | undefined;
      while (!health?.ok && Date.now() < deadline && child.exitCode === null) {
        health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
        if (!health?.ok) await sleep(200);
      }
      expect(health?.status, output).toBe(200);
      expect(receiver.spans).toEqual([]);

      child.kill("SIGTERM");
      expect(await exited, output).toBe(0);
      const served = receiver.spans.filter((s) => s.name === "GET /health");
      expect(served.length).toBeGreaterThan(0);
      expect(new Set(served.map((s) => s.service))).toEqual(new Set([role === "api" ? "tidings-api" : "tidings"]));
    },
    startPatienceMs + 60_000,
  );
});
