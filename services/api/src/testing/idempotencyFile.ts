import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { z } from "zod";
import { sql } from "kysely";
import { TidingsError, newId } from "@tidings/core";
import { createTestDatabase, migrate, testMode, type Database, type TestDatabase } from "@tidings/postgres";
import type { ApiInstance, ApiRoutes } from "../app.js";
import { apiMigrations, type ApiTables } from "../apiMigrations.js";
import { installIdempotency } from "../plugins/idempotency.js";
import { created, ok } from "../replies.js";
import { buildStandInApp, teamHeader } from "./standInAuth.js";

/** A test file of the Idempotency-Key plugin: its database, apps with routes whose effects it counts, and requests to them. */
export interface IdempotencyTestFile {
  readonly test: TestDatabase;
  /** Server mode: a second pool on the same database, as a second api instance would have; embedded: the same one. */
  readonly second: Database;
  /** The stand-in app with the plugin and the effect routes on `test`. */
  readonly app: ApiInstance;
  readonly teamA: string;
  readonly teamB: string;
  /** Another such app, on `database`; closed with the file. */
  appOn(database: Database): ApiInstance;
  /** Keeps requests to `/things` waiting until the function returned is called (at the latest, the next test). */
  holdThings(): () => void;
  /** Makes the next request to `/flaky` fail as a lost database would. */
  failNextFlaky(): void;
  /** How many effects (of `kind`) the routes have had. */
  effects(kind?: string): Promise<number>;
  /** A JSON `POST` as team `team` (teamA unless told), with the Idempotency-Key `key` when given. */
  post(target: ApiInstance, url: string, body: unknown, key?: string, team?: string): Promise<LightMyRequestResponse>;
  /** The row of `key` in the key table, if any. */
  keyRow(key: string): Promise<unknown>;
  /** Waits until a request has reserved `key`. */
  waitForReservation(key: string): Promise<void>;
}

/** The file's database with the api's tables and an `effects` table, set up in its `beforeAll` and dropped in its `afterAll`. */
export function idempotencyTestFile(): IdempotencyTestFile {
  let test: TestDatabase | undefined;
  const apps: ApiInstance[] = [];
  let gate: Promise<void> = Promise.resolve();
  let failNextFlaky = false;

  /** Each effect is a row, so a test counts what actually happened, not what was answered. */
  const effectRoutes =
    (database: Database): ApiRoutes =>
    (routes) => {
      const effect = async (kind: string, label: string) => {
        const id = newId();
        await sql`INSERT INTO effects (id, kind, label) VALUES (${id}, ${kind}, ${label})`.execute(database.db);
        return id;
      };
      const thing = z.object({ object: z.literal("thing"), id: z.string() });
      routes.post(
        "/things",
        { schema: { body: z.object({ name: z.string(), tags: z.array(z.string()).optional() }), response: { 201: thing } } },
        async (request, reply) => {
          await gate;
          if (request.body.name === "refused") throw new TidingsError("validation_error", "`name` is refused.");
          return created(reply, { object: "thing" as const, id: await effect("thing", request.body.name) });
        },
      );
      routes.post(
        "/sends",
        { config: { idempotency: true }, schema: { body: z.object({ to: z.string() }), response: { 200: z.object({ id: z.string() }) } } },
        async (request, reply) => ok(reply, { id: await effect("send", request.body.to) }),
      );
      routes.post(
        "/actions",
        { schema: { body: z.object({ name: z.string() }), response: { 200: z.object({ id: z.string() }) } } },
        async (request, reply) => ok(reply, { id: await effect("action", request.body.name) }),
      );
      routes.post("/flaky", { schema: { body: z.object({ name: z.string() }), response: { 201: thing } } }, async (request, reply) => {
        if (failNextFlaky) {
          failNextFlaky = false;
          throw new Error("the database went away");
        }
        return created(reply, { object: "thing" as const, id: await effect("flaky", request.body.name) });
      });
    };

  const appOn = (database: Database) => {
    const built = buildStandInApp((a) => installIdempotency(a, { database }), [effectRoutes(database)]);
    apps.push(built);
    return built;
  };

  beforeAll(async () => {
    test = await createTestDatabase();
    await migrate(test.database, "api", apiMigrations);
    await test.database.exec("CREATE TABLE effects (id uuid PRIMARY KEY, kind text NOT NULL, label text NOT NULL)");
    Object.assign(file, { test, second: testMode() === "server" ? await test.reopen() : test.database, app: appOn(test.database) });
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await test?.dispose();
  });
  beforeEach(() => {
    gate = Promise.resolve();
    failNextFlaky = false;
  });

  const teamA = newId();
  const keyRow = (key: string) =>
    file.test.database.tables<ApiTables>().selectFrom("api_idempotency_keys").selectAll().where("key", "=", key).executeTakeFirst();

  const file = {
    teamA,
    teamB: newId(),
    appOn,
    holdThings() {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return open;
    },
    failNextFlaky() {
      failNextFlaky = true;
    },
    async effects(kind) {
      const rows = await sql<{
        count: string;
      }>`SELECT count(*)::text AS count FROM effects WHERE ${kind ? sql`kind = ${kind}` : sql`true`}`.execute(file.test.database.db);
      return Number(rows.rows[0]!.count);
    },
    post(target, url, body, key, team = teamA) {
      return target.inject({
        method: "POST",
        url,
        headers: { [teamHeader]: team, "content-type": "application/json", ...(key !== undefined ? { "idempotency-key": key } : {}) },
        payload: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
    keyRow,
    async waitForReservation(key) {
      for (let i = 0; i < 200; i++) {
        if (await keyRow(key)) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error("the first request never reserved its key");
    },
  } as IdempotencyTestFile;
  return file;
}
