import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiInstance } from "../app.js";
import { createTestServices, type TestServices } from "../testing/testServices.js";

/** The real API's OpenAPI document: what a client generated from it needs to be right. */

interface Schema {
  $ref?: string;
  pattern?: string;
  type?: string | string[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  required?: string[];
  anyOf?: Schema[];
  not?: Schema;
  properties?: Record<string, Schema>;
}
interface Operation {
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: Schema }> }>;
  security?: unknown[];
}

let t: TestServices;
let app: ApiInstance;
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  t = await createTestServices();
  app = await t.app();
  paths = (await app.inject({ method: "GET", url: "/openapi.json" })).json().paths;
});
afterAll(() => t?.dispose());

const operations = () =>
  Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, path, operation })),
  );
const jsonBody = (operation: Operation) => operation.requestBody!.content["application/json"]!.schema;

describe("the API's OpenAPI document", () => {
  it("lists every operation's error answers, each with the Error schema", () => {
    expect(operations().length).toBeGreaterThan(100);
    const wrong = operations().flatMap(({ label, operation }) => {
      const guarded = !(Array.isArray(operation.security) && operation.security.length === 0);
      const expected = ["422", "500", ...(guarded ? ["401", "403", "429"] : [])];
      const missing = expected.filter((status) => !operation.responses[status]).map((status) => `${label}: no ${status}`);
      // A page for a person (the tracked link's 404) is the one error answer that is not JSON.
      const page = (response: Operation["responses"][string]) => Object.keys(response.content ?? {}).join() === "text/html";
      const unshaped = Object.entries(operation.responses)
        .filter(
          ([status, response]) =>
            Number(status) >= 400 &&
            !page(response) &&
            response.content?.["application/json"]?.schema.$ref !== "#/components/schemas/Error",
        )
        .map(([status]) => `${label}: ${status} without the Error schema`);
      return [...missing, ...unshaped];
    });
    expect(wrong).toEqual([]);
  });

  it("describes when POST /emails needs `subject`: always, unless a template gives it", () => {
    const body = jsonBody(paths["/emails"]!.post!);
    expect(body.required).toEqual(["to"]);
    const ways = body.anyOf!;
    expect(ways.filter((way) => way.required?.includes("template"))).toEqual([
      expect.objectContaining({ required: ["template"], not: expect.anything() }),
    ]);
    expect(
      ways
        .filter((way) => !way.required?.includes("template"))
        .every((way) => way.required!.includes("subject") && way.required!.includes("from")),
    ).toBe(true);
    expect((jsonBody(paths["/emails/batch"]!.post!) as { items: Schema }).items.anyOf).toEqual(ways);
  });

  it("documents the pages, the pixel, the redirect and the downloads in their own media types", () => {
    const mediaTypes = (path: string, method: string, status: string) =>
      Object.keys(paths[path]![method]!.responses[status]!.content ?? {});
    expect(mediaTypes("/o/{token}", "get", "200")).toEqual(["image/gif"]);
    expect(mediaTypes("/c/{token}", "get", "302")).toEqual(["text/html"]);
    expect(paths["/c/{token}"]!.get!.responses["302"]!.headers).toHaveProperty("location");
    expect(mediaTypes("/c/{token}", "get", "404")).toEqual(["text/html"]);
    expect(mediaTypes("/unsubscribe/{token}", "get", "200")).toEqual(["text/html"]);
    expect(mediaTypes("/unsubscribe/{token}", "post", "400")).toEqual(["text/html", "application/json"]);
    expect(Object.keys(paths["/unsubscribe/{token}"]!.post!.requestBody!.content)).toEqual(["application/x-www-form-urlencoded"]);
    expect(Object.keys(paths["/contacts/imports"]!.post!.requestBody!.content)).toEqual(["multipart/form-data"]);
    expect(mediaTypes("/emails/{id}/attachments/{attachmentId}/download", "get", "200")).toEqual(["*/*"]);
    expect(mediaTypes("/emails/receiving/{id}/raw", "get", "200")).toEqual(["message/rfc822"]);
  });

  it("holds every path parameter to the router's limit of 320 characters", () => {
    const wrong = operations().flatMap(({ label, operation }) =>
      (operation.parameters ?? [])
        .filter((p) => p.in === "path" && p.name !== "token" && !(p.schema.minLength! >= 1 && p.schema.maxLength! <= 320))
        .map((p) => `${label} {${p.name}}: ${JSON.stringify(p.schema)}`),
    );
    expect(wrong).toEqual([]);
    expect(paths["/unsubscribe/{token}"]!.get!.parameters![0]!.schema.maxLength).toBe(320);
  });

  it("gives addresses, domain names and URLs their formats", () => {
    expect(jsonBody(paths["/contacts"]!.post!).properties!.email).toMatchObject({ format: "email" });
    expect(jsonBody(paths["/suppressions"]!.post!).properties!.email).toMatchObject({ format: "email" });
    expect(jsonBody(paths["/webhooks"]!.post!).properties!.endpoint).toMatchObject({ format: "uri" });
    expect(jsonBody(paths["/domains"]!.post!).properties!.name).toMatchObject({ format: "idn-hostname" });
    const email = paths["/emails/{id}"]!.get!.responses["200"]!.content!["application/json"]!.schema.properties!;
    expect(email.id).toMatchObject({ format: "uuid" });
    // The wire's timestamp is not RFC 3339 (a space, and `+00`), so it is a pattern, not `date-time`.
    expect(email.created_at).toMatchObject({ type: "string", pattern: expect.stringContaining("\\+00$") });
  });

  it("lists the failures a route declares beyond its kind's", () => {
    const download = paths["/emails/{id}/attachments/{attachmentId}/download"]!.get!.responses;
    expect(Object.keys(download)).toEqual(expect.arrayContaining(["403", "404", "503"]));
    expect(paths["/contacts"]!.post!.responses["404"]).toBeDefined();
    expect(paths["/ready"]!.get!.responses["503"]).toBeDefined();
    expect(paths["/health"]!.get!.responses["503"]).toBeUndefined();
  });

  it("names the Idempotency-Key header where it is honoured", () => {
    const header = (path: string, method: string) =>
      paths[path]![method]!.parameters?.find((p) => p.in === "header" && p.name === "Idempotency-Key");
    expect(header("/emails", "post")?.schema).toMatchObject({ maxLength: 256 });
    expect(header("/contacts", "post")).toBeDefined();
    expect(header("/emails/{id}/cancel", "post")).toBeUndefined();
  });
});
