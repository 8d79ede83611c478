import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApiInstance } from "../app.js";
import { buildTestApp } from "./testApp.js";
import { probeMalformedRequests, routesWithoutSchema } from "./routeChecks.js";

const apps: ApiInstance[] = [];
function app(...args: Parameters<typeof buildTestApp>) {
  const built = buildTestApp(...args);
  apps.push(built);
  return built;
}
afterAll(() => Promise.all(apps.map((a) => a.close())));

describe("the routes every app serves (all resources: everyRoute.int.test.ts)", () => {
  it("declares a response schema, so it appears in the OpenAPI document", async () => {
    const served = app();
    await served.ready();
    expect(served.routeCatalog.length).toBeGreaterThan(0);
    expect(routesWithoutSchema(served)).toEqual([]);
  });

  it("answers malformed JSON and wrong types with a 4xx in the error shape, never a 500", async () => {
    const served = app();
    await served.ready();
    expect(await probeMalformedRequests(served)).toEqual([]);
  });
});

describe("the route-wide checks catch offenders", () => {
  it("reports a route without a response schema", async () => {
    const served = app({ routes: [(r) => void r.get("/bare", async () => ({ ok: true }))] });
    await served.ready();
    expect(routesWithoutSchema(served)).toEqual(["GET /bare"]);
  });

  it("reports a route that crashes on input its schema lets through", async () => {
    const served = app({
      routes: [
        (r) =>
          void r.post(
            "/loose/:id",
            { schema: { body: z.object({ to: z.any() }), response: { 200: z.object({ to: z.string() }) } } },
            async (req) => ({ to: (req.body.to as string).toUpperCase() }),
          ),
      ],
    });
    await served.ready();
    const failures = await probeMalformedRequests(served);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((f) => f.route === "POST /loose/:id" && f.status === 500)).toBe(true);
  });

  it("reports nothing for a route whose schema covers everything its handler reads", async () => {
    const served = app({
      routes: [
        (r) =>
          void r.post(
            "/items",
            {
              schema: {
                body: z.object({ name: z.string(), tags: z.array(z.string()).optional() }),
                response: { 200: z.object({ n: z.number() }) },
              },
            },
            async (req) => ({ n: req.body.name.length + (req.body.tags?.length ?? 0) }),
          ),
      ],
    });
    await served.ready();
    expect(await probeMalformedRequests(served)).toEqual([]);
  });
});
