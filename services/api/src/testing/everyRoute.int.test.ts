import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@tidings/core";
import type { ApiInstance } from "../app.js";
import { isPublicRoute } from "../plugins/auth.js";
import type { CatalogRoute } from "../plugins/routeCatalog.js";
import { probeMalformedRequests, routesWithoutSchema } from "./routeChecks.js";
import { sampleBody } from "./sampleRequest.js";
import { createTeamResources } from "./teamResources.js";
import { createTestServices, type TestKey, type TestServices } from "./testServices.js";

/**
 * The checks every route of the real API must pass, read from its route catalogue: a route added later
 * is covered without editing this file.
 */

let t: TestServices;
let app: ApiInstance;
let teamA: TestKey;
let teamASender: TestKey;
let teamB: TestKey;
/** A name only team A's key has: a body showing it to another team leaks team A's data. */
const teamAMarker = `team-a-only-${newId().slice(0, 8)}`;
/** Team A's resource per path prefix, put in the path of that prefix's routes; other routes get a fresh id. */
let teamAResources: Record<string, string>;

beforeAll(async () => {
  t = await createTestServices();
  app = await t.app();
  teamA = await t.aKey("route-team-a", { name: teamAMarker });
  teamASender = await t.aKey("route-team-a", { permission: "sending_access", name: "sender" });
  teamB = await t.aKey("route-team-b");
  teamAResources = await createTeamResources(app, teamA, teamAMarker, teamA.id);
});
afterAll(() => t?.dispose());

const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const sendingRoutes = new Set(["POST /emails", "POST /emails/batch", "POST /mcp"]);
const label = (route: CatalogRoute) => `${route.method} ${route.url}`;

function guardedRoutes(): CatalogRoute[] {
  return app.routeCatalog.filter((route) => route.method !== "HEAD" && !isPublicRoute(route.url, route.schema));
}

function pathOf(route: CatalogRoute, unknownIds = false): string {
  const prefix = `/${route.url.split("/")[1]}`;
  return route.url.replace(/:\w+/g, () => (unknownIds ? undefined : teamAResources[prefix]) ?? newId());
}

async function callEach(key: TestKey | { headers: Record<string, string> } | undefined, options: { unknownIds?: boolean } = {}) {
  const answers: { route: CatalogRoute; status: number; name: string | undefined; body: string }[] = [];
  for (const route of guardedRoutes()) {
    const payload = bodyMethods.has(route.method) ? sampleBody(route.schema?.body) : undefined;
    const res = await app.inject({
      method: route.method as "GET",
      url: pathOf(route, options.unknownIds),
      headers: { ...key?.headers, "content-type": "application/json" },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    answers.push({ route, status: res.statusCode, name: (res.json() as { name?: string }).name, body: res.body });
  }
  return answers;
}

describe("every route", () => {
  it("needs a key, except health, readiness and the documentation", () => {
    const open = app.routeCatalog.filter(
      (route) =>
        route.method !== "HEAD" &&
        isPublicRoute(route.url, route.schema) &&
        !route.url.startsWith("/docs") &&
        !route.url.startsWith("/dashboard/") &&
        route.url !== "/dashboard" &&
        route.url !== "/openapi.json",
    );
    // The attachment downloads (docs/wire-compatibility.md §6.2, §6.3), a received email's raw bytes, the unsubscribe page,
    // a shared email's page and frame (§6.1) and the tracked links and pixel check the signature their URL carries instead of a key.
    // The dashboard's pages need a session instead (dashboard/dashboard.int.test.ts holds each of them to it).
    expect(open.map(label).sort()).toEqual([
      "GET /c/*",
      "GET /emails/:id/attachments/:attachmentId/download",
      "GET /emails/receiving/:id/attachments/:attachmentId/download",
      "GET /emails/receiving/:id/raw",
      "GET /health",
      "GET /o/*",
      "GET /ready",
      "GET /shared",
      "GET /shared/content",
      "GET /unsubscribe/:token",
      "POST /unsubscribe/:token",
    ]);
    expect(guardedRoutes().map(label)).toEqual(
      expect.arrayContaining(["POST /api-keys", "GET /api-keys", "PATCH /api-keys/:id", "DELETE /api-keys/:id"]),
    );
  });

  it("declares a response schema, so it appears in the OpenAPI document", () => {
    expect(routesWithoutSchema(app)).toEqual([]);
  });

  it("answers a fixed path asked with another route's method 405, with the fixed path's methods in Allow", async () => {
    const fixed = app.routeCatalog.filter((route) => !/[:*]/.test(route.url));
    const methodsOf = (url: string) => fixed.filter((route) => route.url === url).map((route) => route.method);
    const asked: string[] = [];
    const wrong: string[] = [];
    for (const url of new Set(fixed.map((route) => route.url))) {
      for (const method of ["GET", "POST", "PATCH", "PUT", "DELETE"].filter((m) => !methodsOf(url).includes(m))) {
        if (!app.findRoute({ method: method as "GET", url })) continue;
        asked.push(`${method} ${url}`);
        const res = await app.inject({ method: method as "GET", url, headers: teamA.headers });
        if (res.statusCode !== 405 || res.headers.allow !== methodsOf(url).join(", "))
          wrong.push(`${method} ${url} → ${res.statusCode} ${res.headers.allow ?? ""} ${res.body.slice(0, 120)}`);
      }
    }
    expect(asked).toEqual(expect.arrayContaining(["GET /emails/batch", "GET /domains/claim", "DELETE /contacts/imports"]));
    expect(wrong).toEqual([]);
  });

  it("answers malformed JSON and wrong types with a 4xx in the error shape, never a 500, once past auth", async () => {
    expect(await probeMalformedRequests(app, { headers: teamB.headers })).toEqual([]);
  });
});

describe("the auth matrix, over every guarded route", () => {
  it("without a key: 401 missing_api_key", async () => {
    const wrong = (await callEach(undefined)).filter((a) => a.status !== 401 || a.name !== "missing_api_key");
    expect(wrong.map((a) => `${label(a.route)} → ${a.status} ${a.name}`)).toEqual([]);
  });

  it("with a token of no key: 403 invalid_api_key", async () => {
    const forged = { headers: { authorization: `Bearer re_${"0".repeat(40)}` } };
    const wrong = (await callEach(forged)).filter((a) => a.status !== 403 || a.name !== "invalid_api_key");
    expect(wrong.map((a) => `${label(a.route)} → ${a.status} ${a.name}`)).toEqual([]);
  });

  it("with a sending_access key: 401 restricted_api_key, except on the sending routes", async () => {
    const wrong = (await callEach(teamASender)).filter((a) =>
      sendingRoutes.has(label(a.route)) ? [401, 403].includes(a.status) : a.status !== 401 || a.name !== "restricted_api_key",
    );
    expect(wrong.map((a) => `${label(a.route)} → ${a.status} ${a.name}`)).toEqual([]);
  });

  it("with another team's key: team A's ids are not found, and nothing of team A shows", async () => {
    const answers = await callEach(teamB);
    const unknown = await callEach(teamB, { unknownIds: true });
    const wrong = answers.filter((a, i) => {
      if (a.status >= 500 || a.status === 401 || a.status === 403 || a.body.includes(teamAMarker)) return true;
      // A route naming one of team A's resources must answer exactly as for an id nobody has: 404, or the
      // same validation error, which then cannot depend on team A's resource (docs/wire-compatibility.md §2.4: an idempotent
      // DELETE may answer 200 `deleted: true` for an id it does not know, but must change nothing of team A).
      const namesTeamA = a.route.url.includes(":") && `/${a.route.url.split("/")[1]}` in teamAResources;
      const likeUnknown = a.status === unknown[i]!.status && a.body === unknown[i]!.body;
      return namesTeamA && a.status !== 404 && !likeUnknown && !(a.route.method === "DELETE" && a.status === 200);
    });
    expect(wrong.map((a) => `${label(a.route)} → ${a.status} ${a.body.slice(0, 200)}`)).toEqual([]);
  });

  it("left team A's data as it was", async () => {
    const res = await app.inject({ method: "GET", url: "/api-keys", headers: teamA.headers });
    const names = (res.json() as { data: { id: string; name: string }[] }).data.map((k) => [k.id, k.name]);
    expect(names).toEqual(
      expect.arrayContaining([
        [teamA.id, teamAMarker],
        [teamASender.id, "sender"],
      ]),
    );
    expect(names).toHaveLength(2);
  });
});
