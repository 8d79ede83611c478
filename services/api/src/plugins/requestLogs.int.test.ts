import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { sql } from "kysely";
import { TidingsError, newId } from "@tidings/core";
import { createTestDatabase, migrate, type TestDatabase } from "@tidings/postgres";
import type { ApiInstance, ApiRoutes } from "../app.js";
import { apiMigrations } from "../apiMigrations.js";
import { created, ok } from "../replies.js";
import { logsRoutes } from "../routes/logs.js";
import { capturingLogger } from "../testing/capturingLogger.js";
import { requestLogIds, storedRequestLog } from "../testing/requestLogRows.js";
import { apiKeyHeader, buildStandInApp, teamHeader } from "../testing/standInAuth.js";
import { installRequestLogs } from "./requestLogs.js";
import { pruneRequestLogs } from "./requestLogsRetention.js";

let test: TestDatabase;
let app: ApiInstance;
const teamA = newId();
const teamB = newId();
const keyA = newId();
const bearer = `re_${"S3cr3tT0ken".repeat(4)}`;
const wireTimestamp = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/;

/** Stand-ins for the resources whose bodies hold secrets: api keys, webhooks, sends with attachments. */
const resourceRoutes: ApiRoutes = (app) => {
  app.post(
    "/api-keys",
    { schema: { body: z.object({ name: z.string() }), response: { 201: z.object({ id: z.string(), token: z.string() }) } } },
    async (_request, reply) => created(reply, { id: newId(), token: `re_${"N3wT0ken".repeat(5)}` }),
  );
  app.post(
    "/webhooks",
    {
      schema: {
        body: z.object({ endpoint: z.string() }),
        response: { 201: z.object({ object: z.literal("webhook"), id: z.string(), signing_secret: z.string() }) },
      },
    },
    async (_request, reply) => created(reply, { object: "webhook" as const, id: newId(), signing_secret: "whsec_V3ryS3cretSigningKey" }),
  );
  app.post(
    "/emails",
    {
      schema: {
        body: z.object({ to: z.string(), attachments: z.array(z.object({ filename: z.string(), content: z.string() })).optional() }),
        response: { 200: z.object({ id: z.string() }) },
      },
    },
    async (_request, reply) => ok(reply, { id: newId() }),
  );
  app.get("/refused", { schema: { response: { 200: z.object({}) } } }, async () => {
    throw new TidingsError("validation_error", "`anything` is refused.");
  });
};

function send(method: "GET" | "POST", url: string, options: { team?: string; body?: unknown; userAgent?: string } = {}) {
  const team = options.team === undefined ? teamA : options.team;
  return app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(team ? { [teamHeader]: team, [apiKeyHeader]: keyA } : {}),
      ...(options.userAgent ? { "user-agent": options.userAgent } : {}),
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(options.body !== undefined ? { payload: typeof options.body === "string" ? options.body : JSON.stringify(options.body) } : {}),
  });
}

beforeAll(async () => {
  test = await createTestDatabase();
  await migrate(test.database, "api", apiMigrations);
  app = buildStandInApp(
    (a) =>
      installRequestLogs(a, { database: test.database, logger: capturingLogger("warn").logger, retentionDays: 30, flushIntervalMs: 20 }),
    [resourceRoutes, logsRoutes({ database: test.database })],
  );
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await test?.dispose();
});

describe("request logs", () => {
  it("records a request with its bodies and keeps attachment content, tokens and the Authorization header out", async () => {
    const sent = await send("POST", "/emails?source=test", {
      body: { to: "a@example.com", attachments: [{ filename: "invoice.pdf", content: "UERGLWJ5dGVz" }] },
      userAgent: "resend-node:6.38.0",
    });
    const id = sent.headers["x-request-id"] as string;
    const log = await send("GET", `/logs/${id}`);
    expect(log.statusCode).toBe(200);
    expect(log.json()).toEqual({
      object: "log",
      id,
      created_at: expect.stringMatching(wireTimestamp),
      endpoint: "/emails",
      method: "POST",
      response_status: 200,
      user_agent: "resend-node:6.38.0",
      request_body: { to: "a@example.com", attachments: [{ filename: "invoice.pdf", content: "[redacted]" }] },
      response_body: sent.json(),
    });
    const row = await storedRequestLog(test.database, id);
    expect(row).not.toContain("UERGLWJ5dGVz");
    expect(row).not.toContain("S3cr3tT0ken");
  });

  it("redacts the token of a created API key and the signing secret of a webhook", async () => {
    const key = await send("POST", "/api-keys", { body: { name: "ci", token: "re_SentByTheClient" } });
    const webhook = await send("POST", "/webhooks", { body: { endpoint: "https://example.com/hook" } });
    const keyLog = (await send("GET", `/logs/${key.headers["x-request-id"]}`)).json();
    const webhookLog = (await send("GET", `/logs/${webhook.headers["x-request-id"]}`)).json();
    expect(keyLog.response_body).toEqual({ id: key.json().id, token: "[redacted]" });
    expect(keyLog.request_body).toEqual({ name: "ci", token: "[redacted]" });
    expect(webhookLog.response_body).toEqual({ object: "webhook", id: webhook.json().id, signing_secret: "[redacted]" });
    for (const res of [key, webhook]) {
      const row = await storedRequestLog(test.database, res.headers["x-request-id"] as string);
      expect(row).not.toMatch(/N3wT0ken|V3ryS3cret|SentByTheClient/);
    }
  });

  it("records failed requests with the status the client got, and the body as the client sent it", async () => {
    const refused = await send("GET", "/refused");
    const invalid = await send("POST", "/emails", { body: { to: 42, extra: "\u0000 kept", path: "C:\\u0000" } });
    expect(invalid.statusCode).toBe(422);
    const refusedLog = (await send("GET", `/logs/${refused.headers["x-request-id"]}`)).json();
    expect(refusedLog).toMatchObject({ response_status: 422, request_body: null, response_body: refused.json() });
    const invalidLog = (await send("GET", `/logs/${invalid.headers["x-request-id"]}`)).json();
    // PostgreSQL text cannot hold U+0000: it is kept as the six characters `\u0000`.
    expect(invalidLog).toMatchObject({ response_status: 422, request_body: { to: 42, extra: "\\u0000 kept", path: "C:\\u0000" } });
  });

  it("does not record unauthenticated requests", async () => {
    const anonymous = await send("GET", "/refused", { team: "" });
    expect(anonymous.statusCode).toBe(422);
    expect(await requestLogIds(test.database, [anonymous.headers["x-request-id"] as string])).toEqual([]);
  });

  it("lists the team's logs newest first, as list items, paginated", async () => {
    const team = newId();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await send("GET", "/refused", { team })).headers["x-request-id"] as string);
    const first = await send("GET", "/logs?limit=3", { team });
    expect(first.statusCode).toBe(200);
    const page = first.json();
    expect(page).toMatchObject({ object: "list", has_more: true });
    expect(page.data.map((item: { id: string }) => item.id)).toEqual([...ids].reverse().slice(0, 3));
    expect(Object.keys(page.data[0]).sort()).toEqual(["created_at", "endpoint", "id", "method", "response_status", "user_agent"]);
    expect(page.data[0]).toMatchObject({
      endpoint: "/refused",
      method: "GET",
      response_status: 422,
      created_at: expect.stringMatching(wireTimestamp),
    });

    const rest = (await send("GET", `/logs?limit=3&after=${page.data[2].id}`, { team })).json();
    // The first /logs request is itself logged: it is the newest, so it does not appear after the cursor.
    expect(rest.data.map((item: { id: string }) => item.id)).toEqual([ids[1], ids[0]]);
    expect(rest.has_more).toBe(false);
  });

  it("filters the list by method, by the start of the path, and by status or status class", async () => {
    const team = newId();
    const refused = (await send("GET", "/refused", { team })).headers["x-request-id"] as string;
    const sent = (await send("POST", "/emails", { team, body: { to: "a@example.com" } })).headers["x-request-id"] as string;
    const ids = async (query: string) =>
      ((await send("GET", `/logs?${query}`, { team })).json() as { data: { id: string }[] }).data.map((item) => item.id);
    expect(await ids("method=post")).toEqual([sent]);
    expect(await ids("path=%2Fref")).toEqual([refused]);
    expect(await ids("path=%2F%25")).toEqual([]);
    expect(await ids("status=422")).toEqual([refused]);
    expect(await ids("status=2&path=%2Femails")).toEqual([sent]);
    expect(await ids("status=4&method=GET")).toEqual([refused]);
  });

  it("refuses a filter it cannot take, naming it", async () => {
    for (const [query, field] of [
      ["method=TRACE", "method"],
      ["status=7", "status"],
      ["status=abc", "status"],
      [`path=${"x".repeat(201)}`, "path"],
    ] as const) {
      const res = await send("GET", `/logs?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(res.json(), query).toMatchObject({ name: "validation_error", message: expect.stringContaining(field) });
    }
  });

  it("shows a team only its own logs", async () => {
    const ofA = (await send("GET", "/refused", { team: teamA })).headers["x-request-id"] as string;
    const listB = (await send("GET", "/logs?limit=100", { team: teamB })).json();
    expect(listB.data.map((item: { id: string }) => item.id)).not.toContain(ofA);
    const getB = await send("GET", `/logs/${ofA}`, { team: teamB });
    expect(getB.statusCode).toBe(404);
    expect(getB.json()).toEqual({ statusCode: 404, name: "not_found", message: "Log not found" });
  });

  it("keeps another team's request when a deeply nested body arrives beside it", async () => {
    const first = await send("POST", "/emails", { team: teamB, body: { to: "a@example.com" } });
    const deep = await send("POST", "/emails", { body: `${"[".repeat(5000)}${"]".repeat(5000)}` });
    expect(deep.statusCode).toBe(400);
    await vi.waitFor(
      async () => expect((await send("GET", `/logs/${first.headers["x-request-id"]}`, { team: teamB })).statusCode).toBe(200),
      { timeout: 5000 },
    );
    await vi.waitFor(
      async () => expect((await send("GET", `/logs/${deep.headers["x-request-id"]}`)).json()).toMatchObject({ response_status: 400 }),
      { timeout: 5000 },
    );
  });

  it("answers 422 for an id that is not a UUID and 404 for an unknown one", async () => {
    const bad = await send("GET", "/logs/not-a-uuid");
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ statusCode: 422, name: "validation_error", message: "The `logId` must be a valid UUID." });
    const unknown = await send("GET", `/logs/${newId()}`);
    expect(unknown.json()).toEqual({ statusCode: 404, name: "not_found", message: "Log not found" });
  });

  it("prunes the logs older than the retention period", async () => {
    const old = newId();
    const recent = newId();
    await sql`
      INSERT INTO api_request_logs (id, team_id, created_at, endpoint, method, response_status)
      VALUES (${old}, ${teamA}, now() - interval '31 days', '/emails', 'POST', 200),
             (${recent}, ${teamA}, now() - interval '29 days', '/emails', 'POST', 200)`.execute(test.database.db);
    expect(await pruneRequestLogs(test.database, 30)).toBeGreaterThanOrEqual(1);
    expect(await requestLogIds(test.database, [old, recent])).toEqual([recent]);
  });
});
