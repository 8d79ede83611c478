import { afterAll, describe, expect, it } from "vitest";
import { loadConfig, type Config } from "@tidings/core";
import { settledWrites } from "@tidings/postgres";
import { newApiKeyToken } from "./apiKeyTokens.js";
import { bootstrapFirstKey } from "./bootstrap.js";
import { teamIdForName } from "./handlers/ensureTeam.js";
import { createTestServices, type TestServices } from "./testing/testServices.js";

const opened: TestServices[] = [];
const fresh = async (config?: Config) => {
  const t = await createTestServices(config);
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

  it("with the projector in this process, returns the key only once the api_keys read model holds it", async () => {
    // A read-your-writes wait would give up long before the projections are released.
    const t = await fresh(loadConfig({ READ_YOUR_WRITES_TIMEOUT_MS: "200" }));
    const app = await t.app();
    const release = t.holdProjections();
    let returned = false;
    const bootstrapping = bootstrapFirstKey(t.services, embedded, { projectorInProcess: true }).finally(() => (returned = true));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(returned).toBe(false);
    release();
    const first = await bootstrapping;
    const res = await app.inject({ method: "GET", url: "/api-keys", headers: { authorization: `Bearer ${first!.token}` } });
    expect(res.statusCode).toBe(200);
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
