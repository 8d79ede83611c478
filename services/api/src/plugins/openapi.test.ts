import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApiInstance } from "../app.js";
import { listQuerySchema, listSchema } from "../pagination.js";
import { buildTestApp } from "../testing/testApp.js";

let app: ApiInstance;

beforeAll(async () => {
  app = buildTestApp({
    routes: [
      (r) => {
        r.post(
          "/things",
          {
            schema: {
              body: z.object({ name: z.string().max(50).describe("Shown in the dashboard."), size: z.number().int().optional() }),
              response: { 201: z.object({ object: z.literal("thing"), id: z.uuid() }) },
            },
          },
          async (_req, reply) => reply.code(201).send({ object: "thing", id: "0b8a3f5e-2a64-4c1e-9a51-4f5d2b7c9e10" }),
        );
        r.get(
          "/things",
          { schema: { querystring: listQuerySchema({ status: z.enum(["completed", "failed"]).optional() }), response: { 200: listSchema(z.object({ id: z.string() })) } } },
          async () => ({ object: "list" as const, has_more: false, data: [] }),
        );
      },
    ],
  });
  await app.ready();
});
afterAll(() => app.close());

describe("/openapi.json", () => {
  it("is an OpenAPI 3.1 document generated from the zod schemas", async () => {
    const res = await app.inject({ method: "GET", url: "/openapi.json" });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe("3.1.0");
    const create = doc.paths["/things"].post;
    const body = create.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["name"]);
    expect(body.properties.name).toMatchObject({ type: "string", maxLength: 50, description: "Shown in the dashboard." });
    expect(create.responses["201"].content["application/json"].schema.properties.id).toMatchObject({ type: "string", format: "uuid" });
    const listParams = doc.paths["/things"].get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`);
    expect(listParams).toEqual(expect.arrayContaining(["query:limit", "query:after", "query:before", "query:status"]));
  });

  it("documents the API's routes and not the documentation's own", async () => {
    const paths = Object.keys((await app.inject({ method: "GET", url: "/openapi.json" })).json().paths);
    expect(paths).toEqual(expect.arrayContaining(["/health", "/ready", "/things"]));
    expect(paths.filter((p) => p.startsWith("/docs") || p === "/openapi.json")).toEqual([]);
  });
});

describe("/docs", () => {
  it("serves a page whose scripts and styles all come from this server", async () => {
    const page = await app.inject({ method: "GET", url: "/docs/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, "http://local/docs/").pathname);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      const res = await app.inject({ method: "GET", url: asset });
      expect([asset, res.statusCode]).toEqual([asset, 200]);
    }
    const init = await app.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
    // Swagger UI would otherwise send the document to validator.swagger.io for a badge.
    expect(init.body).toContain("validatorUrl: null");
  });
});
