import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorTable } from "../errorTable.js";
import { listQuerySchema, listSchema } from "../pagination.js";
import { testAppForFile } from "../testing/testApp.js";

const thing = z.object({ id: z.string() });

const file = testAppForFile({
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
        {
          schema: {
            querystring: listQuerySchema({ status: z.enum(["completed", "failed"]).optional() }),
            response: { 200: listSchema(z.object({ id: z.string() })) },
          },
        },
        async () => ({ object: "list" as const, has_more: false, data: [] }),
      );
      r.get("/things/:id", { schema: { params: z.object({ id: z.string() }), response: { 200: thing } } }, async () => ({ id: "x" }));
      r.post("/things/special", { schema: { response: { 200: thing } } }, async () => ({ id: "x" }));
      r.post("/uploads", { bodyLimit: 2048, schema: { body: z.object({ data: z.string() }), response: { 200: thing } } }, async () => ({
        id: "x",
      }));
      r.post("/nudges", { schema: { body: z.object({ note: z.string() }).optional(), response: { 200: thing } } }, async () => ({
        id: "x",
      }));
      r.delete(
        "/locks/:name",
        {
          schema: {
            params: z.object({ name: z.string().max(40) }),
            errors: { resource_locked: "The lock is held." },
            response: { 200: thing },
          },
        },
        async () => ({ id: "x" }),
      );
      r.get(
        "/pixel",
        { schema: { response: { 200: { description: "A GIF.", content: { "image/gif": { schema: z.string() } } } } } },
        async (_req, reply) => reply.type("image/gif").send("GIF89a"),
      );
    },
  ],
});

describe("/openapi.json", () => {
  it("is an OpenAPI 3.1 document generated from the zod schemas", async () => {
    const res = await file.app.inject({ method: "GET", url: "/openapi.json" });
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
    const paths = Object.keys((await file.app.inject({ method: "GET", url: "/openapi.json" })).json().paths);
    expect(paths).toEqual(expect.arrayContaining(["/health", "/ready", "/things"]));
    expect(paths.filter((p) => p.startsWith("/docs") || p === "/openapi.json")).toEqual([]);
  });
});

describe("the error answers in /openapi.json", () => {
  const document = async () => (await file.app.inject({ method: "GET", url: "/openapi.json" })).json();
  const errorRef = { $ref: "#/components/schemas/Error" };
  type Operation = {
    responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }>;
  };
  const operations = (doc: { paths: Record<string, Record<string, Operation>> }) =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, operation })),
    );

  it("lists, for every operation, each error status it can answer, with the one Error schema", async () => {
    const doc = await document();
    for (const { label, operation } of operations(doc)) {
      const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
      expect(
        errors.map(([status]) => status),
        label,
      ).toEqual(expect.arrayContaining(["422", "500"]));
      for (const [status, response] of errors)
        expect([label, status, response.content?.["application/json"]?.schema]).toEqual([label, status, errorRef]);
    }
    expect(Object.keys(doc.paths["/things"].post.responses)).toEqual(["201", "400", "408", "413", "415", "422", "431", "500"]);
    expect(doc.components.schemas.Error).toMatchObject({
      type: "object",
      required: ["statusCode", "message", "name"],
      additionalProperties: false,
      properties: { statusCode: { type: "integer" }, message: { type: "string" }, name: { type: "string" } },
    });
    expect([...doc.components.schemas.Error.properties.name.enum].sort()).toEqual(
      [...new Set(Object.values(errorTable).map((wire) => wire.name))].sort(),
    );
  });

  it("says why, naming the route's own body limit", async () => {
    const doc = await document();
    expect(doc.paths["/uploads"].post.responses["413"].description).toContain("2048 bytes");
    expect(doc.paths["/things"].post.responses["413"].description).toContain("1048576 bytes");
    expect(doc.paths["/things"].post.responses["400"].description).toContain("`validation_error`");
  });

  it("lists 405, with its Allow header, where a path template also matches a fixed path that takes other methods", async () => {
    const doc = await document();
    const read = doc.paths["/things/{id}"].get.responses;
    expect(read["405"].description).toContain("`/things/special`");
    expect(read["405"].headers).toHaveProperty("Allow");
    expect(doc.paths["/things"].get.responses).not.toHaveProperty("405");
  });

  it("adds the failures a route's schema declares", async () => {
    const doc = await document();
    expect(doc.paths["/locks/{name}"].delete.responses["409"]).toMatchObject({
      description: expect.stringContaining("The lock is held."),
      content: { "application/json": { schema: errorRef } },
    });
  });

  it("keeps a route's own media type beside the errors", async () => {
    const doc = await document();
    const pixel = doc.paths["/pixel"].get.responses;
    expect(Object.keys(pixel["200"].content)).toEqual(["image/gif"]);
    expect(pixel["422"].content["application/json"].schema).toEqual(errorRef);
  });
});

describe("/openapi.json's limits", () => {
  it("holds path parameters to the router's: not empty, not a dot segment, and at most 320 characters unless the schema says less", async () => {
    const doc = (await file.app.inject({ method: "GET", url: "/openapi.json" })).json();
    expect(doc.paths["/things/{id}"].get.parameters[0].schema).toMatchObject({
      type: "string",
      minLength: 1,
      maxLength: 320,
      not: { enum: [".", ".."] },
    });
    expect(doc.paths["/locks/{name}"].delete.parameters[0].schema).toMatchObject({ minLength: 1, maxLength: 40 });
  });

  it("requires a JSON body only when the schema does", async () => {
    const doc = (await file.app.inject({ method: "GET", url: "/openapi.json" })).json();
    expect(doc.paths["/things"].post.requestBody.required).toBe(true);
    expect(doc.paths["/nudges"].post.requestBody.required).toBe(false);
  });
});

describe("/docs", () => {
  it("serves a page whose scripts and styles all come from this server", async () => {
    const page = await file.app.inject({ method: "GET", url: "/docs/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, "http://local/docs/").pathname);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      const res = await file.app.inject({ method: "GET", url: asset });
      expect([asset, res.statusCode]).toEqual([asset, 200]);
    }
    const init = await file.app.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
    // Swagger UI would otherwise send the document to validator.swagger.io for a badge.
    expect(init.body).toContain("validatorUrl: null");
  });
});
