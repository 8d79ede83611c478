import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { newId, parseTimestamp, sha256Hex } from "@tidings/core";
import { apiKeysProjection, rebuildProjection } from "@tidings/projections";
import { apiTestFile } from "../testing/apiTestFile.js";
import type { TestKey } from "../testing/testServices.js";

const file = apiTestFile("keys");

const call = async (method: "GET" | "POST" | "PATCH" | "DELETE", url: string, key: TestKey | undefined, payload?: unknown) => {
  const res = await file.app.inject({
    method,
    url,
    headers: { ...key?.headers, "content-type": "application/json" },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
};
const create = (body: unknown, key: TestKey = file.admin) => call("POST", "/api-keys", key, body);
const list = async (key: TestKey = file.admin, query = "") => (await call("GET", `/api-keys${query}`, key)).body;
const asKey = (token: string, teamId: string): TestKey => ({ id: "", token, teamId, headers: { authorization: `Bearer ${token}` } });

describe("POST /api-keys", () => {
  it("answers 201 with the id and a re_ token that works at once", async () => {
    const res = await create({ name: "Production" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["id", "object", "token"]);
    expect(res.body.object).toBe("api_key");
    expect(res.body.token).toMatch(/^re_[0-9A-Za-z]{40}$/);
    const fresh = await call("GET", "/api-keys", asKey(res.body.token, file.admin.teamId));
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.map((k: { id: string }) => k.id)).toContain(res.body.id);
  });

  it("stores only the token's SHA-256, and records who asked", async () => {
    const res = await create({ name: "Audited" });
    const [event] = await file.testServices.store.readStream(`apikey-${res.body.id}`);
    expect(JSON.stringify(event, (_key, value) => (typeof value === "bigint" ? String(value) : value))).not.toContain(res.body.token);
    expect(event!.data).toMatchObject({
      tokenHash: sha256Hex(res.body.token),
      teamId: file.admin.teamId,
      permission: "full_access",
      domainId: null,
    });
    expect(event!.metadata).toMatchObject({
      teamId: file.admin.teamId,
      actor: `api:${file.admin.id}`,
      requestId: res.headers["x-request-id"],
    });
  });

  it("refuses a permission other than full_access and sending_access with invalid_access", async () => {
    for (const permission of ["admin", "", 3, null]) {
      expect(await create({ name: "x", permission })).toMatchObject({
        status: 422,
        body: { statusCode: 422, name: "invalid_access", message: "`permission` must be `full_access` or `sending_access`." },
      });
    }
  });

  it("refuses a missing, empty or too long name, naming the field", async () => {
    expect(await create({})).toMatchObject({ status: 422, body: { name: "missing_required_field", message: "Missing `name` field." } });
    expect((await create({ name: "" })).body).toMatchObject({ statusCode: 422, name: "validation_error" });
    const long = await create({ name: "x".repeat(51) });
    expect(long.body).toMatchObject({ statusCode: 422, name: "validation_error" });
    expect(long.body.message).toContain("`name`");
    expect((await create({ name: "x".repeat(50) })).status).toBe(201);
  });

  it("takes domain_id only with sending_access, and only naming a domain of the team", async () => {
    const domainId = (await call("POST", "/domains", file.admin, { name: `keys-${newId().slice(0, 8)}.example.test` })).body.id;
    const unknown = await create({ name: "x", permission: "sending_access", domain_id: newId() });
    expect(unknown.body).toMatchObject({ statusCode: 422, name: "validation_error", message: expect.stringContaining("`domain_id`") });
    const refused = await create({ name: "x", permission: "full_access", domain_id: domainId });
    expect(refused.body).toMatchObject({ statusCode: 422, name: "validation_error" });
    expect(refused.body.message).toContain("`domain_id`");
    const sending = await create({ name: "sender", permission: "sending_access", domain_id: domainId });
    expect(sending.status).toBe(201);
    const [event] = await file.testServices.store.readStream(`apikey-${sending.body.id}`);
    expect(event!.data).toMatchObject({ permission: "sending_access", domainId });
  });
});

describe("GET /api-keys", () => {
  it("lists the team's keys newest first as {id, name, created_at, last_used_at}", async () => {
    const team = await file.testServices.aKey(`list-${newId()}`, { name: "first" });
    const second = (await create({ name: "second" }, team)).body.id;
    const page = await list(team);
    expect(page).toMatchObject({ object: "list", has_more: false });
    expect(page.data.map((k: { id: string; name: string }) => [k.id, k.name])).toEqual([
      [second, "second"],
      [team.id, "first"],
    ]);
    const item = page.data[0];
    expect(Object.keys(item).sort()).toEqual(["created_at", "id", "last_used_at", "name"]);
    expect(item.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/);
    expect(Math.abs(parseTimestamp(item.created_at)!.getTime() - Date.now())).toBeLessThan(60_000);
    expect(item.last_used_at).toBeNull();
  });

  it("returns every key when limit is omitted, and pages when it is given", async () => {
    const team = await file.testServices.aKey(`many-${newId()}`);
    for (let i = 0; i < 22; i++) await create({ name: `k${i}` }, team);
    const all = await list(team);
    expect(all.data).toHaveLength(23);
    expect(all.has_more).toBe(false);
    const first = await list(team, "?limit=10");
    expect(first.data).toHaveLength(10);
    expect(first.has_more).toBe(true);
    const next = await list(team, `?limit=10&after=${first.data[9].id}`);
    expect(next.data.map((k: { id: string }) => k.id)).toEqual(all.data.slice(10, 20).map((k: { id: string }) => k.id));
  });
});

describe("PATCH /api-keys/:id", () => {
  it("renames a key and answers {object, id}", async () => {
    const id = (await create({ name: "before" })).body.id;
    expect(await call("PATCH", `/api-keys/${id}`, file.admin, { name: "after" })).toMatchObject({
      status: 200,
      body: { object: "api_key", id },
    });
    expect((await list()).data.find((k: { id: string }) => k.id === id).name).toBe("after");
  });

  it("answers 404 for an unknown id and 422 naming `id` for one that is not a uuid", async () => {
    expect(await call("PATCH", `/api-keys/${newId()}`, file.admin, { name: "x" })).toMatchObject({
      status: 404,
      body: { statusCode: 404, name: "not_found", message: "API key not found" },
    });
    const bad = await call("PATCH", "/api-keys/not-a-uuid", file.admin, { name: "x" });
    expect(bad.body).toMatchObject({ statusCode: 422, name: "validation_error" });
    expect(bad.body.message).toContain("`id`");
  });
});

describe("DELETE /api-keys/:id", () => {
  it("deletes a key: it stops working, leaves the list, and a second delete is a 404", async () => {
    const doomed = await create({ name: "doomed" });
    const key = asKey(doomed.body.token, file.admin.teamId);
    expect((await call("GET", "/api-keys", key)).status).toBe(200);
    expect(await call("DELETE", `/api-keys/${doomed.body.id}`, file.admin)).toMatchObject({
      status: 200,
      body: { object: "api_key", id: doomed.body.id, deleted: true },
    });
    expect((await list()).data.map((k: { id: string }) => k.id)).not.toContain(doomed.body.id);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await call("GET", "/api-keys", key)).toMatchObject({ status: 403, body: { name: "invalid_api_key" } });
    expect((await call("DELETE", `/api-keys/${doomed.body.id}`, file.admin)).status).toBe(404);
    expect((await call("DELETE", "/api-keys/x", file.admin)).body).toMatchObject({ statusCode: 422, name: "validation_error" });
  });

  it("refuses a deleted key though the api_keys read model has not applied the deletion yet", async () => {
    const doomed = await create({ name: "doomed while behind" });
    const key = asKey(doomed.body.token, file.admin.teamId);
    const release = file.testServices.holdProjections();
    try {
      // The delete answers once its read-your-writes wait gives up, as on a loaded machine; nothing is cached.
      const hurried = await file.testServices.app({
        services: { ...file.testServices.services, waitFor: (position) => file.testServices.projections.waitFor(position, 50) },
        auth: { lookupTtlMs: 0 },
      });
      expect((await hurried.inject({ method: "DELETE", url: `/api-keys/${doomed.body.id}`, headers: file.admin.headers })).statusCode).toBe(
        200,
      );
      const listed = await sql<{ id: string }>`SELECT id FROM api_keys WHERE id = ${doomed.body.id}`.execute(
        file.testServices.test.database.db,
      );
      expect(listed.rows).toHaveLength(1);
      const refused = await hurried.inject({ method: "GET", url: "/api-keys", headers: key.headers });
      expect({ status: refused.statusCode, name: refused.json().name }).toEqual({ status: 403, name: "invalid_api_key" });
    } finally {
      release();
    }
  });
});

describe("teams", () => {
  it("keep their keys apart: another team's key ids answer 404 and never show in a list", async () => {
    const other = await file.testServices.aKey(`other-${newId()}`);
    const mine = (await create({ name: "mine" })).body.id;
    expect((await call("PATCH", `/api-keys/${mine}`, other, { name: "stolen" })).status).toBe(404);
    expect((await call("DELETE", `/api-keys/${mine}`, other)).status).toBe(404);
    expect((await list(other)).data.map((k: { id: string }) => k.id)).toEqual([other.id]);
    expect((await list()).data.find((k: { id: string }) => k.id === mine).name).toBe("mine");
  });
});

describe("last_used_at", () => {
  const usageRows = async (id: string) =>
    (
      await sql<{ n: string }>`SELECT count(*)::text AS n FROM api_key_usage WHERE api_key_id = ${id}`.execute(
        file.testServices.test.database.db,
      )
    ).rows[0]!.n;

  it("is written off the request path, by the periodic flush, not by the request", async () => {
    const key = await file.testServices.aKey(`usage-${newId()}`);
    for (let i = 0; i < 5; i++) expect((await call("GET", "/api-keys", key)).status).toBe(200);
    expect(await usageRows(key.id)).toBe("0");
    expect((await list(key)).data[0].last_used_at).toBeNull();
  });

  it("shows the last use once flushed, one row per key however many requests", async () => {
    const flushing = await file.testServices.app({ auth: { usageFlushMs: 100 } });
    const key = await file.testServices.aKey(`flushed-${newId()}`);
    const before = Date.now();
    for (let i = 0; i < 5; i++) await flushing.inject({ method: "GET", url: "/api-keys", headers: key.headers });
    await expect.poll(() => usageRows(key.id), { timeout: 5000 }).toBe("1");
    const used = (await list(key)).data[0].last_used_at as string;
    expect(used).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/);
    expect(parseTimestamp(used)!.getTime()).toBeGreaterThanOrEqual(before - 1);
  });

  it("is written when the app closes, and survives a rebuild of the api_keys read model", async () => {
    const closing = await file.testServices.app();
    const key = await file.testServices.aKey(`closing-${newId()}`);
    await closing.inject({ method: "GET", url: "/api-keys", headers: key.headers });
    await closing.close();
    expect(await usageRows(key.id)).toBe("1");
    const used = (await list(key)).data[0].last_used_at;
    await rebuildProjection({ store: file.testServices.store, database: file.testServices.test.database, projection: apiKeysProjection });
    expect((await list(key)).data[0]).toMatchObject({ id: key.id, last_used_at: used });
  });
});
