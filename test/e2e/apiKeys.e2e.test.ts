import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Resend } from "resend";
import { startTestServer, type TestServer } from "../support/testServer.js";
import { paced, uuid, wireTimestamp } from "../support/wire.js";

/** API keys through the official SDK (docs/wire-compatibility.md §6.6), with the `object` on create of docs/wire-compatibility.md §10.9. */

let server: TestServer;
let resend: ReturnType<typeof client>;
const anError = (statusCode: number, name: string) => ({ statusCode, name, message: expect.any(String) });

/**
 * The SDK's api-keys calls for one token. The bootstrap team has the default limit of 10 requests/s, which
 * these tests may reach: a 429 is waited out as its `retry-after` says, since the limit is not under test.
 */
function client(token: string) {
  const keys = new Resend(token, { baseUrl: server.url }).apiKeys;
  return {
    apiKeys: {
      create: (...args: Parameters<typeof keys.create>) => paced(() => keys.create(...args)),
      list: (...args: Parameters<typeof keys.list>) => paced(() => keys.list(...args)),
      update: (...args: Parameters<typeof keys.update>) => paced(() => keys.update(...args)),
      remove: (...args: Parameters<typeof keys.remove>) => paced(() => keys.remove(...args)),
    },
  };
}

beforeAll(async () => {
  server = await startTestServer();
  resend = client(server.token);
});
afterAll(async () => {
  await server?.stop();
});

describe("resend.apiKeys", () => {
  it("create returns the id and a re_ token, which works at once", async () => {
    const { data, error } = await resend.apiKeys.create({ name: "Production" });
    expect(error).toBeNull();
    expect(data).toEqual({ object: "api_key", id: expect.stringMatching(uuid), token: expect.stringMatching(/^re_[0-9A-Za-z]{32,}$/) });
    const listed = await client(data!.token).apiKeys.list();
    expect(listed.error).toBeNull();
    expect(listed.data!.data.map((k) => k.id)).toContain(data!.id);
  });

  it("list returns every key of the team as {id, name, created_at, last_used_at}, newest first", async () => {
    const { data: created } = await resend.apiKeys.create({ name: "Listed" });
    const { data, error } = await resend.apiKeys.list();
    expect(error).toBeNull();
    expect(data).toMatchObject({ object: "list", has_more: false });
    expect(Object.keys(data!).sort()).toEqual(["data", "has_more", "object"]);
    expect(data!.data[0]!.id).toBe(created!.id);
    for (const key of data!.data) {
      expect(Object.keys(key).sort()).toEqual(["created_at", "id", "last_used_at", "name"]);
      expect(key.created_at).toMatch(wireTimestamp);
      expect(key.last_used_at === null || wireTimestamp.test(key.last_used_at)).toBe(true);
    }
    expect(data!.data.map((k) => k.name)).toEqual(expect.arrayContaining(["Listed", "bootstrap"]));
  });

  it("list pages with limit and after", async () => {
    const all = (await resend.apiKeys.list()).data!.data;
    const first = (await resend.apiKeys.list({ limit: 1 })).data!;
    expect(first).toMatchObject({ has_more: true, data: [{ id: all[0]!.id }] });
    const second = (await resend.apiKeys.list({ limit: 1, after: all[0]!.id })).data!;
    expect(second.data.map((k) => k.id)).toEqual([all[1]!.id]);
  });

  it("update renames a key and returns {object, id}", async () => {
    const { data: created } = await resend.apiKeys.create({ name: "Before" });
    const { data, error } = await resend.apiKeys.update(created!.id, { name: "After" });
    expect(error).toBeNull();
    expect(data).toEqual({ object: "api_key", id: created!.id });
    const names = (await resend.apiKeys.list()).data!.data.filter((k) => k.id === created!.id).map((k) => k.name);
    expect(names).toEqual(["After"]);
  });

  it("remove deletes a key, which then fails with invalid_api_key within a second", async () => {
    const { data: created } = await resend.apiKeys.create({ name: "Doomed" });
    const doomed = client(created!.token);
    expect((await doomed.apiKeys.list()).error).toBeNull();
    const { data, error } = await resend.apiKeys.remove(created!.id);
    expect(error).toBeNull();
    expect(data).toEqual({ object: "api_key", id: created!.id, deleted: true });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await doomed.apiKeys.list()).error).toEqual(anError(403, "invalid_api_key"));
    expect((await resend.apiKeys.list()).data!.data.map((k) => k.id)).not.toContain(created!.id);
  });
});

describe("errors through the SDK", () => {
  it("a sending_access key is restricted off the sending routes", async () => {
    const { data } = await resend.apiKeys.create({ name: "Sender", permission: "sending_access" });
    const { data: listed, error } = await client(data!.token).apiKeys.list();
    expect(listed).toBeNull();
    expect(error).toEqual(anError(401, "restricted_api_key"));
  });

  it("an unknown token is invalid_api_key", async () => {
    expect((await client(`re_${"Z".repeat(40)}`).apiKeys.list()).error).toEqual(anError(403, "invalid_api_key"));
  });

  it("an unknown permission is invalid_access; a long name and a domain without sending access are validation errors", async () => {
    const permission = "admin" as "full_access";
    expect((await resend.apiKeys.create({ name: "x", permission })).error).toEqual(anError(422, "invalid_access"));
    expect((await resend.apiKeys.create({ name: "x".repeat(51) })).error).toEqual(anError(422, "validation_error"));
    expect((await resend.apiKeys.create({ name: "x", permission: "full_access", domain_id: randomUUID() })).error).toEqual(
      anError(422, "validation_error"),
    );
  });

  it("an unknown id is not_found, and an id that is not a uuid a validation error", async () => {
    const unknown = await resend.apiKeys.update(randomUUID(), { name: "x" });
    expect(unknown.error).toEqual({ statusCode: 404, name: "not_found", message: "API key not found" });
    expect((await resend.apiKeys.remove(randomUUID())).error).toEqual(anError(404, "not_found"));
    expect((await resend.apiKeys.remove("not-a-uuid")).error).toEqual(anError(422, "validation_error"));
  });
});
