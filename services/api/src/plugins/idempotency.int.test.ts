import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { sql } from "kysely";
import { TidingsError, newId } from "@tidings/core";
import { createTestDatabase, migrate, testMode, type Database, type TestDatabase } from "@tidings/postgres";
import type { ApiInstance, ApiRoutes } from "../app.js";
import { apiMigrations } from "../apiMigrations.js";
import { created, ok } from "../replies.js";
import { buildStandInApp, teamHeader } from "../testing/standInAuth.js";
import { installIdempotency } from "./idempotency.js";
import { pruneIdempotencyKeys } from "./idempotencyStore.js";
import type { ApiTables } from "../apiMigrations.js";

let test: TestDatabase;
let second: Database;
const apps: ApiInstance[] = [];
const teamA = newId();
const teamB = newId();

/** Requests to `/things` wait here while a test holds it, to keep them in flight. */
let gate: Promise<void> = Promise.resolve();
let failNextFlaky = false;

/** Each effect is a row, so a test counts what actually happened, not what was answered. */
const effectRoutes =
  (database: Database): ApiRoutes =>
  (app) => {
    const effect = async (kind: string, label: string) => {
      const id = newId();
      await sql`INSERT INTO effects (id, kind, label) VALUES (${id}, ${kind}, ${label})`.execute(database.db);
      return id;
    };
    const thing = z.object({ object: z.literal("thing"), id: z.string() });
    app.post(
      "/things",
      { schema: { body: z.object({ name: z.string(), tags: z.array(z.string()).optional() }), response: { 201: thing } } },
      async (request, reply) => {
        await gate;
        if (request.body.name === "refused") throw new TidingsError("validation_error", "`name` is refused.");
        return created(reply, { object: "thing" as const, id: await effect("thing", request.body.name) });
      },
    );
    app.post(
      "/sends",
      { config: { idempotency: true }, schema: { body: z.object({ to: z.string() }), response: { 200: z.object({ id: z.string() }) } } },
      async (request, reply) => ok(reply, { id: await effect("send", request.body.to) }),
    );
    app.post(
      "/actions",
      { schema: { body: z.object({ name: z.string() }), response: { 200: z.object({ id: z.string() }) } } },
      async (request, reply) => ok(reply, { id: await effect("action", request.body.name) }),
    );
    app.post("/flaky", { schema: { body: z.object({ name: z.string() }), response: { 201: thing } } }, async (request, reply) => {
      if (failNextFlaky) {
        failNextFlaky = false;
        throw new Error("the database went away");
      }
      return created(reply, { object: "thing" as const, id: await effect("flaky", request.body.name) });
    });
  };

function appOn(database: Database): ApiInstance {
  const app = buildStandInApp((a) => installIdempotency(a, { database }), [effectRoutes(database)]);
  apps.push(app);
  return app;
}

let app: ApiInstance;

beforeAll(async () => {
  test = await createTestDatabase();
  await migrate(test.database, "api", apiMigrations);
  await test.database.exec("CREATE TABLE effects (id uuid PRIMARY KEY, kind text NOT NULL, label text NOT NULL)");
  // Server mode: a second pool on the same database, as a second api instance would have.
  second = testMode() === "server" ? await test.reopen() : test.database;
  app = appOn(test.database);
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await test?.dispose();
});
beforeEach(() => {
  gate = Promise.resolve();
  failNextFlaky = false;
});

const effects = async (kind?: string) => {
  const rows = await sql<{
    count: string;
  }>`SELECT count(*)::text AS count FROM effects WHERE ${kind ? sql`kind = ${kind}` : sql`true`}`.execute(test.database.db);
  return Number(rows.rows[0]!.count);
};

function post(target: ApiInstance, url: string, body: unknown, key?: string, team = teamA) {
  return target.inject({
    method: "POST",
    url,
    headers: { [teamHeader]: team, "content-type": "application/json", ...(key !== undefined ? { "idempotency-key": key } : {}) },
    payload: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("Idempotency-Key", () => {
  it("gives 50 concurrent requests with one key exactly one effect, across two api instances", async () => {
    const other = appOn(second);
    const key = newId();
    const before = await effects("thing");
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const requests = Array.from({ length: 50 }, (_, i) => post(i % 2 === 0 ? app : other, "/things", { name: "concurrent" }, key));
    setTimeout(() => open(), 50);
    const responses = await Promise.all(requests);

    expect(await effects("thing")).toBe(before + 1);
    const successes = responses.filter((r) => r.statusCode === 201);
    const conflicts = responses.filter((r) => r.statusCode === 409);
    expect(successes.length + conflicts.length).toBe(50);
    expect(successes.length).toBeGreaterThanOrEqual(1);
    expect(new Set(successes.map((r) => r.json().id)).size).toBe(1);
    for (const conflict of conflicts) expect(conflict.json()).toMatchObject({ statusCode: 409, name: "concurrent_idempotent_requests" });

    const replay = await post(other, "/things", { name: "concurrent" }, key);
    expect(replay.statusCode).toBe(201);
    expect(replay.json().id).toBe(successes[0]!.json().id);
    expect(await effects("thing")).toBe(before + 1);
  });

  it("replays the first answer, status and body, for the same key and body, without running again", async () => {
    const key = newId();
    const first = await post(app, "/things", { name: "replayed", tags: ["a", "b"] }, key);
    expect(first.statusCode).toBe(201);
    const count = await effects("thing");

    const again = await post(app, "/things", { tags: ["a", "b"], name: "replayed" }, key);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers["content-type"]).toMatch(/^application\/json/);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    expect(await effects("thing")).toBe(count);
  });

  it("answers 409 invalid_idempotent_request when the key comes back with another body", async () => {
    const key = newId();
    expect((await post(app, "/things", { name: "one" }, key)).statusCode).toBe(201);
    const count = await effects("thing");
    const other = await post(app, "/things", { name: "two" }, key);
    expect(other.statusCode).toBe(409);
    expect(other.json()).toEqual({
      statusCode: 409,
      name: "invalid_idempotent_request",
      message: expect.stringContaining("`Idempotency-Key`"),
    });
    expect(await effects("thing")).toBe(count);
  });

  it("answers 409 concurrent_idempotent_requests while the first request is still running, then replays it", async () => {
    const key = newId();
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const first = post(app, "/things", { name: "slow" }, key);
    await waitForReservation(key);
    const during = await post(app, "/things", { name: "slow" }, key);
    expect(during.statusCode).toBe(409);
    expect(during.json()).toMatchObject({ name: "concurrent_idempotent_requests" });
    open();
    expect((await first).statusCode).toBe(201);
    const after = await post(app, "/things", { name: "slow" }, key);
    expect(after.json().id).toBe((await first).json().id);
  });

  it.each([
    ["empty", ""],
    ["257 characters long", "k".repeat(257)],
  ])("refuses a key that is %s with 400 invalid_idempotency_key, running nothing", async (_, key) => {
    const count = await effects();
    const res = await post(app, "/things", { name: "bad key" }, key);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      name: "invalid_idempotency_key",
      message: "The `Idempotency-Key` header must be between 1 and 256 characters.",
    });
    expect(await effects()).toBe(count);
  });

  it("takes a key of 256 characters", async () => {
    const key = "k".repeat(255) + "!";
    expect((await post(app, "/things", { name: "long key" }, key)).statusCode).toBe(201);
    expect((await post(app, "/things", { name: "long key" }, key)).headers["idempotent-replayed"]).toBe("true");
  });

  it("scopes a key to the team and to the endpoint", async () => {
    const key = newId();
    const count = await effects();
    const a = await post(app, "/things", { name: "scoped" }, key, teamA);
    const b = await post(app, "/things", { name: "scoped" }, key, teamB);
    const send = await post(app, "/sends", { to: "scoped" }, key, teamA);
    expect([a.statusCode, b.statusCode, send.statusCode]).toEqual([201, 201, 200]);
    expect(a.json().id).not.toBe(b.json().id);
    expect(await effects()).toBe(count + 3);
  });

  it("is honoured by a 200 route that opts in, and ignored by a POST that neither creates nor opts in", async () => {
    const key = newId();
    const send1 = await post(app, "/sends", { to: "a@example.com" }, key);
    const send2 = await post(app, "/sends", { to: "a@example.com" }, key);
    expect(send2.json().id).toBe(send1.json().id);

    const actions = await effects("action");
    await post(app, "/actions", { name: "x" }, key);
    await post(app, "/actions", { name: "x" }, key);
    expect(await effects("action")).toBe(actions + 2);
  });

  it("releases the key after a 5xx, so the client's retry with it runs", async () => {
    const key = newId();
    failNextFlaky = true;
    const failed = await post(app, "/flaky", { name: "retry" }, key);
    expect(failed.statusCode).toBe(500);
    const retried = await post(app, "/flaky", { name: "retry" }, key);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers["idempotent-replayed"]).toBeUndefined();
    expect(await effects("flaky")).toBe(1);
  });

  it("releases the key once the database is back when the release itself failed, so the retry runs without waiting for the key to be abandoned", async () => {
    const key = newId();
    // The database refusing every change to the keys stands in for it being away for a moment.
    await test.database.exec(`
      CREATE TABLE IF NOT EXISTS key_outage (since timestamptz);
      CREATE OR REPLACE FUNCTION refuse_key_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM key_outage) THEN RAISE EXCEPTION 'the database is away' USING ERRCODE = '57P03'; END IF;
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
      END $$;
      DROP TRIGGER IF EXISTS refuse_key_changes ON api_idempotency_keys;
      CREATE TRIGGER refuse_key_changes BEFORE UPDATE OR DELETE ON api_idempotency_keys FOR EACH ROW EXECUTE FUNCTION refuse_key_changes();
      INSERT INTO key_outage VALUES (now());`);
    try {
      failNextFlaky = true;
      expect((await post(app, "/flaky", { name: "outage" }, key)).statusCode).toBe(500);
      expect((await post(app, "/flaky", { name: "outage" }, key)).statusCode).toBe(409);
      await test.database.exec("DELETE FROM key_outage");
      let retried = await post(app, "/flaky", { name: "outage" }, key);
      for (const started = Date.now(); retried.statusCode === 409 && Date.now() - started < 10_000;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        retried = await post(app, "/flaky", { name: "outage" }, key);
      }
      expect(retried.statusCode).toBe(201);
    } finally {
      await test.database.exec("DROP TRIGGER refuse_key_changes ON api_idempotency_keys; DELETE FROM key_outage");
    }
  });

  it("releases the key after a 4xx from the handler, so the corrected request can use it", async () => {
    const key = newId();
    const refused = await post(app, "/things", { name: "refused" }, key);
    expect(refused.statusCode).toBe(422);
    const corrected = await post(app, "/things", { name: "corrected" }, key);
    expect(corrected.statusCode).toBe(201);
  });

  it("does not take the key for a body the route's schema refuses", async () => {
    const key = newId();
    expect((await post(app, "/things", { name: 5 }, key)).statusCode).toBe(422);
    expect(await keyRow(key)).toBeUndefined();
    expect((await post(app, "/things", { name: "valid" }, key)).statusCode).toBe(201);
  });

  it("lets a key be used again once it has expired, and prunes expired keys", async () => {
    const key = newId();
    const first = await post(app, "/things", { name: "expiring" }, key);
    await sql`UPDATE api_idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = ${key}`.execute(test.database.db);
    const later = await post(app, "/things", { name: "expiring, another body" }, key);
    expect(later.statusCode).toBe(201);
    expect(later.json().id).not.toBe(first.json().id);

    await sql`UPDATE api_idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = ${key}`.execute(test.database.db);
    expect(await pruneIdempotencyKeys(test.database)).toBeGreaterThanOrEqual(1);
    expect(await keyRow(key)).toBeUndefined();
  });

  it("takes over a key whose request never answered (its process died) once it is abandoned", async () => {
    const key = newId();
    await sql`
      INSERT INTO api_idempotency_keys (team_id, method, path, key, request_hash, owner_request_id, reserved_at, expires_at)
      VALUES (${teamA}, 'POST', '/things', ${key}, 'whatever', ${newId()}, now() - interval '2 minutes', now() + interval '1 day')`.execute(
      test.database.db,
    );
    const res = await post(app, "/things", { name: "after a crash" }, key);
    expect(res.statusCode).toBe(201);
  });

  it("ignores the header on unauthenticated requests", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/things",
      headers: { "content-type": "application/json", "idempotency-key": "" },
      payload: { name: "anonymous" },
    });
    expect(res.statusCode).toBe(201);
  });
});

async function keyRow(key: string) {
  return test.database.tables<ApiTables>().selectFrom("api_idempotency_keys").selectAll().where("key", "=", key).executeTakeFirst();
}

async function waitForReservation(key: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await keyRow(key)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the first request never reserved its key");
}
