import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { newId } from "@tidings/core";
import type { ApiInstance, ApiRoutes } from "../app.js";
import { createTestServices, type TestKey, type TestServices } from "../testing/testServices.js";
import { requireAuth } from "./auth.js";

let t: TestServices;
let app: ApiInstance;
let admin: TestKey;

/**
 * Stand-ins for the sending routes, for as long as the real ones do not exist: each echoes the caller
 * that auth decorated the request with.
 */
const caller = z.object({ teamId: z.string(), apiKeyId: z.string(), permission: z.string(), domainId: z.string().nullable() });
function sendingStandIns(missing: string[]): ApiRoutes {
  return (r) => {
    for (const url of missing) r.post(url, { schema: { response: { 200: caller } } }, async (request) => requireAuth(request));
  };
}

beforeAll(async () => {
  t = await createTestServices();
  const probe = await t.app();
  const missing = ["/emails", "/emails/batch"].filter((url) => !probe.routeCatalog.some((r) => r.method === "POST" && r.url === url));
  app = await t.app({ routes: [sendingStandIns(missing)] });
  admin = await t.aKey("auth-team");
});
afterAll(() => t?.dispose());

const get = (url: string, authorization?: string) =>
  app.inject({ method: "GET", url, headers: authorization === undefined ? {} : { authorization } });

describe("the Authorization header", () => {
  it("is required: without it, or without a bearer token in it, 401 missing_api_key", async () => {
    for (const header of [undefined, "", "Basic dXNlcjpwYXNz", "Bearer", "Bearer  ", admin.token]) {
      const res = await get("/api-keys", header);
      expect([header, res.statusCode, res.json().name]).toEqual([header, 401, "missing_api_key"]);
      expect(Object.keys(res.json()).sort()).toEqual(["message", "name", "statusCode"]);
    }
  });

  it("must name a live key: 403 invalid_api_key otherwise", async () => {
    for (const token of [`re_${"A".repeat(40)}`, "re_short", "anything-at-all"]) {
      const res = await get("/api-keys", `Bearer ${token}`);
      expect([token, res.statusCode, res.json()]).toEqual([
        token,
        403,
        { statusCode: 403, name: "invalid_api_key", message: "API key is invalid." },
      ]);
    }
  });

  it("accepts any case of the scheme and surrounding spaces", async () => {
    expect((await get("/api-keys", `bearer ${admin.token}`)).statusCode).toBe(200);
    expect((await get("/api-keys", `Bearer   ${admin.token} `)).statusCode).toBe(200);
  });
});

describe("routes without a key", () => {
  it("serve health, readiness and the documentation", async () => {
    for (const url of ["/health", "/ready", "/openapi.json", "/docs/"]) expect([url, (await get(url)).statusCode]).toEqual([url, 200]);
  });

  it("answer an unknown route 404 and a wrong method 405, before any key is asked for", async () => {
    expect((await get("/no-such-thing")).json()).toMatchObject({ statusCode: 404, name: "not_found" });
    expect((await app.inject({ method: "PUT", url: "/api-keys" })).json()).toMatchObject({ statusCode: 405, name: "method_not_allowed" });
  });
});

describe("request.auth", () => {
  it("carries the caller's team, key, permission and domain to the sending routes", async () => {
    const domain = await app.inject({
      method: "POST",
      url: "/domains",
      headers: admin.headers,
      payload: { name: `auth-${newId().slice(0, 8)}.example.test` },
    });
    const domainId = domain.json().id as string;
    const sender = await t.aKey("auth-team", { permission: "sending_access", domainId });
    for (const url of ["/emails", "/emails/batch"]) {
      const res = await app.inject({ method: "POST", url, headers: sender.headers });
      expect([url, res.statusCode === 401 || res.statusCode === 403]).toEqual([url, false]);
      // The stand-in answers with request.auth; a real sending route answers with its own shape.
      if (res.statusCode === 200 && !("id" in res.json())) {
        expect(res.json()).toEqual({ teamId: sender.teamId, apiKeyId: sender.id, permission: "sending_access", domainId });
      }
    }
    expect((await get("/api-keys", sender.headers.authorization)).json()).toMatchObject({ statusCode: 401, name: "restricted_api_key" });
  });
});

describe("a deleted key", () => {
  it("fails within 1 s on every api instance, including one that has just used it", async () => {
    const other = await t.anotherInstance();
    const doomed = await t.aKey("auth-team", { name: "doomed" });
    const use = (instance: ApiInstance) =>
      instance.inject({ method: "GET", url: "/api-keys", headers: doomed.headers }).then((res) => res.statusCode);
    expect(await use(other)).toBe(200);
    expect(await use(app)).toBe(200);

    const deleted = await app.inject({ method: "DELETE", url: `/api-keys/${doomed.id}`, headers: admin.headers });
    expect(deleted.statusCode).toBe(200);
    const since = performance.now();
    const failedAfter = async (instance: ApiInstance) => {
      while ((await use(instance)) === 200) await new Promise((resolve) => setTimeout(resolve, 20));
      return performance.now() - since;
    };
    const [here, there] = await Promise.all([failedAfter(app), failedAfter(other)]);
    expect(here).toBeLessThan(1000);
    expect(there).toBeLessThan(1000);
    expect(await use(other)).toBe(403);
  });
});
