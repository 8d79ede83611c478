import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, loadConfig, systemClock, type Config } from "@tidings/core";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { ensureTeam, teamIdForName } from "@tidings/api";
import { openRuntime, type Runtime } from "../runtime.js";
import { seedMigratedDatabase } from "../testing/migratedDataDir.js";
import type { CliOutput } from "../cliOutput.js";
import { UsageError } from "../usageError.js";
import { teamsSetBroadcastRate, teamsSetRateLimit } from "./teams.js";

const logger = createLogger("silent");
const cleanups: (() => Promise<void> | void)[] = [];
let config: Config;

beforeAll(async () => {
  if (testMode() === "server") {
    const test: TestDatabase = await createTestDatabase();
    cleanups.push(() => test.dispose());
    config = loadConfig({ EVENTSTORE_URL: test.url, TIDINGS_SECRET: "s".repeat(32) });
  } else {
    const dir = mkdtempSync(join(tmpdir(), "tidings-teams-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    await seedMigratedDatabase(dir);
    config = loadConfig({ DATA_DIR: dir });
  }
  const runtime = await openRuntime(config, logger);
  try {
    await ensureTeam({ store: runtime.store, clock: systemClock }, "acme", { actor: "cli" });
  } finally {
    await runtime.close();
  }
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** Runs a command on stores of its own, as the CLI does, and returns what it printed on stdout. */
async function printedBy(run: (runtime: Runtime, out: CliOutput) => Promise<number>): Promise<string[]> {
  const printed: string[] = [];
  const runtime = await openRuntime(config, logger);
  try {
    expect(await run(runtime, { out: (line) => void printed.push(line), err: () => {} })).toBe(0);
  } finally {
    await runtime.close();
  }
  return printed;
}

/** Runs a command that must fail, with its error. */
async function failureOf(run: (runtime: Runtime, out: CliOutput) => Promise<number>): Promise<unknown> {
  const runtime = await openRuntime(config, logger);
  try {
    return await run(runtime, { out: () => {}, err: () => {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
  } finally {
    await runtime.close();
  }
}

async function teamEvents() {
  const runtime = await openRuntime(config, logger);
  try {
    return (await runtime.store.readStream(`team-${teamIdForName("acme")}`)).map((e) => ({
      type: e.type,
      data: e.data,
      actor: e.metadata.actor,
    }));
  } finally {
    await runtime.close();
  }
}

describe("tidings teams set-rate-limit", () => {
  it("records the team's new limit, by name or by id, and nothing when it is unchanged", async () => {
    const teamId = teamIdForName("acme");
    expect(await printedBy((runtime, out) => teamsSetRateLimit(runtime, "acme", "50", out))).toEqual([
      `team acme (${teamId}): 50 requests per second`,
    ]);
    expect(await printedBy((runtime, out) => teamsSetRateLimit(runtime, teamId, "50", out))).toEqual([
      `team ${teamId} (${teamId}): 50 requests per second (unchanged)`,
    ]);
    expect((await teamEvents()).slice(1)).toEqual([{ type: "TeamRateLimitSet", data: { teamId, requestsPerSecond: 50 }, actor: "cli" }]);
  });

  it.each(["0", "-3", "2.5", "ten", ""])("refuses the limit %j as a usage error", async (limit) => {
    expect(await failureOf((runtime, out) => teamsSetRateLimit(runtime, "acme", limit, out))).toBeInstanceOf(UsageError);
  });

  it("refuses a team that does not exist, writing nothing", async () => {
    expect(await failureOf((runtime, out) => teamsSetRateLimit(runtime, "nobody", "5", out))).toEqual(
      new UsageError('there is no team "nobody"'),
    );
  });
});

describe("tidings teams set-broadcast-rate", () => {
  it("records the team's broadcast rate, back to the default with `default`, and refuses a bad rate or team", async () => {
    const teamId = teamIdForName("acme");
    expect(await printedBy((runtime, out) => teamsSetBroadcastRate(runtime, "acme", "200", out))).toEqual([
      `team acme (${teamId}): broadcasts at 200 emails per second`,
    ]);
    expect(await printedBy((runtime, out) => teamsSetBroadcastRate(runtime, "acme", "default", out))).toEqual([
      `team acme (${teamId}): broadcasts at the default 1000 emails per second`,
    ]);
    expect((await teamEvents()).filter((e) => e.type === "TeamBroadcastRateSet").map((e) => e.data)).toEqual([
      { teamId, emailsPerSecond: 200 },
      { teamId, emailsPerSecond: null },
    ]);
    expect(await failureOf((runtime, out) => teamsSetBroadcastRate(runtime, "acme", "0", out))).toBeInstanceOf(UsageError);
    expect(await failureOf((runtime, out) => teamsSetBroadcastRate(runtime, "nobody", "5", out))).toEqual(
      new UsageError('there is no team "nobody"'),
    );
  });
});
