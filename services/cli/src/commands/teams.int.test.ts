import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger, loadConfig, systemClock, type Config } from "@tidings/core";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { ensureTeam, teamIdForName } from "@tidings/api";
import { openRuntime } from "../runtime.js";
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

async function printedBy(run: () => Promise<void>): Promise<string[]> {
  const printed: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((line: string) => void printed.push(line));
  try {
    await run();
  } finally {
    log.mockRestore();
  }
  return printed;
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
    expect(await printedBy(() => teamsSetRateLimit(config, logger, "acme", "50"))).toEqual([
      `team acme (${teamId}): 50 requests per second`,
    ]);
    expect(await printedBy(() => teamsSetRateLimit(config, logger, teamId, "50"))).toEqual([
      `team ${teamId} (${teamId}): 50 requests per second (unchanged)`,
    ]);
    expect((await teamEvents()).slice(1)).toEqual([{ type: "TeamRateLimitSet", data: { teamId, requestsPerSecond: 50 }, actor: "cli" }]);
  });

  it.each(["0", "-3", "2.5", "ten", ""])("refuses the limit %j as a usage error", async (limit) => {
    await expect(teamsSetRateLimit(config, logger, "acme", limit)).rejects.toBeInstanceOf(UsageError);
  });

  it("refuses a team that does not exist, writing nothing", async () => {
    await expect(teamsSetRateLimit(config, logger, "nobody", "5")).rejects.toThrow(new UsageError('there is no team "nobody"'));
  });
});

describe("tidings teams set-broadcast-rate", () => {
  it("records the team's broadcast rate, back to the default with `default`, and refuses a bad rate or team", async () => {
    const teamId = teamIdForName("acme");
    expect(await printedBy(() => teamsSetBroadcastRate(config, logger, "acme", "200"))).toEqual([
      `team acme (${teamId}): broadcasts at 200 emails per second`,
    ]);
    expect(await printedBy(() => teamsSetBroadcastRate(config, logger, "acme", "default"))).toEqual([
      `team acme (${teamId}): broadcasts at the default 1000 emails per second`,
    ]);
    expect((await teamEvents()).filter((e) => e.type === "TeamBroadcastRateSet").map((e) => e.data)).toEqual([
      { teamId, emailsPerSecond: 200 },
      { teamId, emailsPerSecond: null },
    ]);
    await expect(teamsSetBroadcastRate(config, logger, "acme", "0")).rejects.toBeInstanceOf(UsageError);
    await expect(teamsSetBroadcastRate(config, logger, "nobody", "5")).rejects.toThrow(new UsageError('there is no team "nobody"'));
  });
});
