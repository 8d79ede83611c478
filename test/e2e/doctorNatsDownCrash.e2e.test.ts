import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testMode } from "@tidings/postgres";
import { privateNatsUnavailable } from "../support/privateNats.js";
import { privatePostgresUnavailable } from "../support/privatePostgres.js";
import { restartableDeploymentForSuite } from "../support/restartableDeployment.js";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");

const serverMode = testMode() === "server";
const unavailable = serverMode ? (privatePostgresUnavailable() ?? privateNatsUnavailable()) : undefined;
if (!serverMode)
  console.warn("doctor with NATS down skipped in embedded mode: there is no NATS to stop; it runs with TIDINGS_TEST_MODE=server");
else if (unavailable && !process.env.CI) console.warn(`doctor with NATS down skipped: ${unavailable}`);

interface Check {
  check: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

/**
 * Issue 26's doctor with NATS stopped: a NATS server of the test's own (never the machine's shared one, which
 * other runs use) under role processes of their own, killed as a crash would. `tidings doctor`, run as an
 * operator runs it, exits 1 naming NATS and what to do, `/ready` says no until NATS is back, then yes with
 * nothing done by hand. Last of the crash tier (vitest.config.ts), as it stops a dependency under every role.
 */
describe.skipIf(!serverMode || (unavailable !== undefined && !process.env.CI))("tidings doctor and /ready while NATS is down", () => {
  const deployment = restartableDeploymentForSuite({}, unavailable);

  /** `tidings <args>` as an operator runs it beside the deployment: its exit code and output. */
  const tidings = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [cli, ...args],
        { env: { PATH: process.env.PATH, ...deployment.env, LOG_LEVEL: "silent" }, timeout: 120_000 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });

  it("doctor exits 1 naming NATS and what to do, and /ready is 503 until NATS is back", { timeout: 300_000 }, async () => {
    if (unavailable) throw new Error(`CI must run the doctor with NATS down, and cannot here: ${unavailable}`);
    const { nats, readyStatus, waitForReady } = deployment;
    const before = JSON.parse((await tidings("doctor", "--json")).stdout) as { checks: Check[] };
    expect(before.checks.find((c) => c.check === "NATS")).toMatchObject({ ok: true });

    await nats.kill();
    let back = false;
    try {
      const downFor = await waitForReady(false, 60_000);
      const text = await tidings("doctor");
      expect(text.code, text.stderr).toBe(1);
      expect(text.stdout.split("\n").find((line) => /^\S\s+NATS\s/.test(line))).toMatch(
        /^✗\s+NATS\s+.+check NATS_URL, that nats-server runs with JetStream \(-js\) and takes connections from here/,
      );
      const json = await tidings("doctor", "--json");
      expect(json.code, json.stderr).toBe(1);
      const report = JSON.parse(json.stdout) as { ok: boolean; checks: Check[] };
      expect(report.ok).toBe(false);
      expect(report.checks.find((c) => c.check === "NATS")).toMatchObject({ ok: false, fix: expect.stringMatching(/NATS_URL/) });
      expect(report.checks.find((c) => c.check === "PostgreSQL")).toMatchObject({ ok: true });
      expect(await readyStatus()).toBe(503);

      await nats.start();
      back = true;
      const recovered = await waitForReady(true, 60_000);
      const after = await tidings("doctor", "--json");
      expect((JSON.parse(after.stdout) as { checks: Check[] }).checks.find((c) => c.check === "NATS")).toMatchObject({ ok: true });
      console.log(`doctor with NATS down: /ready said no ${downFor} ms after the kill, and yes ${recovered} ms after NATS started`);
    } finally {
      if (!back) await nats.start();
    }
  });
});
