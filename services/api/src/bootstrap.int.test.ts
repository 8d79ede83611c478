import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "@tidings/core";
import { settledWrites } from "@tidings/postgres";
import { newApiKeyToken } from "./apiKeyTokens.js";
import { bootstrapFirstKey } from "./bootstrap.js";
import { teamIdForName } from "./handlers/ensureTeam.js";
import { createTestServices, type TestServices } from "./testing/testServices.js";

const opened: TestServices[] = [];
const fresh = async () => {
  const t = await createTestServices();
  opened.push(t);
  return t;
};
afterAll(() => Promise.all(opened.map((t) => t.dispose())));

const embedded = loadConfig({});
const apiKeyStreams = async (t: TestServices) => {
  await settledWrites(t.test.database);
  return (await t.store.readAll({ filter: { streamCategory: ["apikey"] } })).map((e) => e.streamId);
};

describe("bootstrapFirstKey", () => {
  it("creates a default team and a full-access key on the first embedded start, and never again", async () => {
    const t = await fresh();
    const app = await t.app();
    const first = await bootstrapFirstKey(t.services, embedded);
    expect(first).toMatchObject({ teamId: teamIdForName("default"), source: "generated" });
    expect(first!.token).toMatch(/^re_[0-9A-Za-z]{40}$/);
    const res = await app.inject({ method: "GET", url: "/api-keys", headers: { authorization: `Bearer ${first!.token}` } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject([{ id: first!.apiKeyId, name: "bootstrap" }]);

    expect(await bootstrapFirstKey(t.services, embedded)).toBeUndefined();
    expect(await bootstrapFirstKey(t.services, { ...embedded, TIDINGS_BOOTSTRAP_TOKEN: newApiKeyToken() })).toBeUndefined();
    expect(await apiKeyStreams(t)).toEqual([`apikey-${first!.apiKeyId}`]);
  });

  it("does nothing in server mode without TIDINGS_BOOTSTRAP_TOKEN, and makes that exact token the first key, once, when instances start together", async () => {
    const t = await fresh();
    expect(await bootstrapFirstKey(t.services, { mode: "server", TIDINGS_BOOTSTRAP_TOKEN: undefined })).toBeUndefined();
    expect(await apiKeyStreams(t)).toEqual([]);

    const token = newApiKeyToken();
    const other = newApiKeyToken();
    const starts = await Promise.all([
      ...Array.from({ length: 5 }, () => bootstrapFirstKey(t.services, { mode: "server", TIDINGS_BOOTSTRAP_TOKEN: token })),
      bootstrapFirstKey(t.services, { mode: "server", TIDINGS_BOOTSTRAP_TOKEN: other }),
    ]);
    const created = starts.filter((s) => s !== undefined);
    expect(new Set(created.map((s) => s.apiKeyId)).size).toBe(1);
    const winner = created[0]!;
    expect([token, other]).toContain(winner.token);
    expect(winner.source).toBe("environment");
    expect(await apiKeyStreams(t)).toEqual([`apikey-${winner.apiKeyId}`]);

    const app = await t.app();
    const res = await app.inject({ method: "GET", url: "/api-keys", headers: { authorization: `Bearer ${winner.token}` } });
    expect(res.statusCode).toBe(200);
    const loser = winner.token === token ? other : token;
    expect((await app.inject({ method: "GET", url: "/api-keys", headers: { authorization: `Bearer ${loser}` } })).statusCode).toBe(403);
  });
});
