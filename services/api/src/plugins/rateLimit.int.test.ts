import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { TidingsError, newId, systemClock } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { teamDecider, teamStream } from "@tidings/domain";
import { createPostgresEventStore, eventStoreMigrations, type EventStore } from "@tidings/eventstore";
import { createTestDatabase, migrate, testMode, type Database, type TestDatabase } from "@tidings/postgres";
import { startProjections, teamsProjection, type RunningProjections } from "@tidings/projections";
import type { ApiInstance, ApiRoutes } from "../app.js";
import { apiMigrations } from "../apiMigrations.js";
import { ensureTeam } from "../handlers/ensureTeam.js";
import { capturingLogger } from "../testing/capturingLogger.js";
import { buildStandInApp, teamHeader } from "../testing/standInAuth.js";
import { installRateLimit } from "./rateLimit.js";
import { databaseRateBuckets, memoryRateBuckets, type RateBuckets } from "./rateLimitBuckets.js";
import { teamRateLimits } from "./teamRateLimits.js";

let test: TestDatabase;
let second: Database;
let store: EventStore;
let projections: RunningProjections;
const apps: ApiInstance[] = [];

const routes: ApiRoutes = (app) => {
  app.get("/ping", { schema: { response: { 200: z.object({ pong: z.boolean() }) } } }, async () => ({ pong: true }));
  app.get("/refused", { schema: { response: { 200: z.object({}) } } }, async () => {
    throw new TidingsError("validation_error", "`anything` is refused.");
  });
};

/** In server mode the bucket lives in PostgreSQL, as `tidings serve` chooses; embedded, in memory. */
function appWith(
  database: Database,
  buckets: RateBuckets = testMode() === "server" ? databaseRateBuckets(database) : memoryRateBuckets(),
): ApiInstance {
  const app = buildStandInApp(
    (a) => installRateLimit(a, { buckets, limitOf: teamRateLimits(database, { refreshAfterMs: 100 }) }),
    [routes],
  );
  apps.push(app);
  return app;
}

async function createTeam(): Promise<string> {
  const { teamId, position } = await ensureTeam({ store, clock: systemClock }, `team ${newId()}`, { actor: "cli" });
  expect(await projections.waitFor(position!, 10_000)).toBe(true);
  return teamId;
}

async function setLimit(teamId: string, requestsPerSecond: number): Promise<void> {
  const { position } = await handleCommand({
    store,
    streamId: teamStream(teamId),
    decider: teamDecider,
    command: { type: "SetTeamRateLimit", teamId, requestsPerSecond },
    metadata: { actor: "cli", teamId },
  });
  expect(await projections.waitFor(position!, 10_000)).toBe(true);
}

const ping = (app: ApiInstance, teamId?: string, url = "/ping") =>
  app.inject({ method: "GET", url, headers: teamId ? { [teamHeader]: teamId } : {} });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  test = await createTestDatabase();
  await migrate(test.database, "eventstore", eventStoreMigrations);
  await migrate(test.database, "api", apiMigrations);
  store = createPostgresEventStore(test.database);
  projections = await startProjections({
    store,
    database: test.database,
    projections: [teamsProjection],
    logger: capturingLogger("warn").logger,
  });
  second = testMode() === "server" ? await test.reopen() : test.database;
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await projections?.stop();
  await store?.close();
  await test?.dispose();
});

describe("rate limit", () => {
  it("carries the ratelimit headers on a success and on an error, starting from the default of 10 per second", async () => {
    const app = appWith(test.database);
    const teamId = await createTeam();
    const success = await ping(app, teamId);
    const succeededAt = Date.now();
    expect(success.statusCode).toBe(200);
    expect(success.headers).toMatchObject({
      "ratelimit-limit": "10",
      "ratelimit-remaining": "9",
      "ratelimit-reset": "1",
      "ratelimit-policy": "10;w=1",
    });

    const error = await ping(app, teamId, "/refused");
    expect(error.statusCode).toBe(422);
    expect(error.headers).toMatchObject({ "ratelimit-limit": "10", "ratelimit-policy": "10;w=1", "ratelimit-reset": "1" });
    // The error took a token too; the bucket refills one token per 100 ms, which a loaded machine can spend between the two.
    const refilled = Math.floor((Date.now() - succeededAt) / 100);
    expect(Number(error.headers["ratelimit-remaining"])).toBeLessThanOrEqual(Math.min(9, 8 + refilled));
  });

  it("answers 429 rate_limit_exceeded with retry-after once the burst is spent, then lets requests through again", async () => {
    const app = appWith(test.database);
    const teamId = await createTeam();
    const responses = await Promise.all(Array.from({ length: 25 }, () => ping(app, teamId)));
    const passed = responses.filter((r) => r.statusCode === 200);
    const limited = responses.filter((r) => r.statusCode === 429);
    expect(passed.length + limited.length).toBe(25);
    // Ten from the full bucket, plus what refilled while the requests ran (10 a second).
    expect(passed.length).toBeGreaterThanOrEqual(10);
    expect(passed.length).toBeLessThanOrEqual(13);
    const refused = limited[0]!;
    expect(refused.json()).toEqual({
      statusCode: 429,
      name: "rate_limit_exceeded",
      message: expect.stringContaining("10 requests per second"),
    });
    expect(refused.headers).toMatchObject({
      "retry-after": "1",
      "ratelimit-limit": "10",
      "ratelimit-remaining": "0",
      "ratelimit-policy": "10;w=1",
    });

    await sleep(1100);
    expect((await ping(app, teamId)).statusCode).toBe(200);
  });

  it("keeps teams apart", async () => {
    const app = appWith(test.database);
    const [busy, quiet] = [await createTeam(), await createTeam()];
    await Promise.all(Array.from({ length: 20 }, () => ping(app, busy)));
    const res = await ping(app, quiet);
    expect(res.statusCode).toBe(200);
    expect(res.headers["ratelimit-remaining"]).toBe("9");
  });

  it("applies a limit changed with SetTeamRateLimit (`tidings teams set-rate-limit`)", async () => {
    const app = appWith(test.database);
    const teamId = await createTeam();
    expect((await ping(app, teamId)).headers["ratelimit-limit"]).toBe("10");
    await setLimit(teamId, 3);
    await sleep(1100);

    let limit: unknown;
    for (let i = 0; i < 50 && limit !== "3"; i++) {
      limit = (await ping(app, teamId)).headers["ratelimit-limit"];
      if (limit !== "3") await sleep(50);
    }
    expect(limit).toBe("3");
    await sleep(1100);
    const burst = await Promise.all(Array.from({ length: 8 }, () => ping(app, teamId)));
    const passed = burst.filter((r) => r.statusCode === 200).length;
    expect(passed).toBeGreaterThanOrEqual(3);
    expect(passed).toBeLessThanOrEqual(4);
    expect(burst.find((r) => r.statusCode === 429)!.headers["ratelimit-policy"]).toBe("3;w=1");
  });

  it("shares one bucket between two api instances on one database", async () => {
    const one = appWith(test.database, databaseRateBuckets(test.database));
    const two = appWith(second, databaseRateBuckets(second));
    const teamId = await createTeam();
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => ping(i % 2 === 0 ? one : two, teamId)));
    const passed = responses.filter((r) => r.statusCode === 200);
    // Separate buckets would let 20 through (10 each).
    expect(passed.length).toBeGreaterThanOrEqual(10);
    expect(passed.length).toBeLessThanOrEqual(13);
    const afterwards = await ping(two, teamId);
    expect(Number(afterwards.headers["ratelimit-remaining"])).toBeLessThanOrEqual(3);
  });

  it("grants a burst of concurrent requests exactly the team's tokens, each its own remaining count, when they share statements", async () => {
    const buckets = databaseRateBuckets(test.database);
    const teamId = newId();
    const decisions = await Promise.all(Array.from({ length: 40 }, async () => buckets.take(teamId, 10)));
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed.length).toBeGreaterThanOrEqual(10);
    expect(allowed.length).toBeLessThanOrEqual(11);
    const remaining = allowed.map((d) => Math.floor(d.tokens)).sort((a, b) => b - a);
    // An eleventh grant is a token refilled between two statements (a tenth of a second on a loaded
    // machine), which may give a count already given once; otherwise no two grants share a count.
    expect(remaining.length - new Set(remaining).size).toBeLessThanOrEqual(allowed.length - 10);
    expect(remaining.at(-1)).toBe(0);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.tokens < 1)).toBe(true);
  });

  it("does not limit unauthenticated requests, nor give them the headers", async () => {
    const app = appWith(test.database);
    const responses = await Promise.all(Array.from({ length: 30 }, () => ping(app)));
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    expect(responses[0]!.headers["ratelimit-limit"]).toBeUndefined();
  });
});
