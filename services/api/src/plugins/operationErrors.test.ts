import { describe, expect, it } from "vitest";
import { z } from "zod";
import { operationErrors } from "./operationErrors.js";
import type { CatalogRoute } from "./routeCatalog.js";

const route = (method: string, url: string, extra: Partial<CatalogRoute> = {}): CatalogRoute => ({
  method,
  url,
  schema: { response: { 200: z.object({ ok: z.boolean() }) } },
  config: undefined,
  bodyLimit: undefined,
  ...extra,
});

const statuses = (subject: CatalogRoute, catalog: CatalogRoute[] = [subject], guarded = true) => [
  ...operationErrors(subject, { catalog, guarded, defaultBodyLimit: 1024 }).keys(),
];
const namesAt = (subject: CatalogRoute, status: number) =>
  operationErrors(subject, { catalog: [subject], guarded: true, defaultBodyLimit: 1024 }).get(status)?.names;

describe("the error answers of an operation", () => {
  it("for a read behind a key: the key, the rate limit, an unknown id and a bad path", () => {
    const read = route("GET", "/things/:id", { schema: { params: z.object({ id: z.uuid() }), response: {} } });
    expect(statuses(read)).toEqual([400, 401, 403, 404, 408, 422, 429, 431, 500, 503]);
    expect(namesAt(read, 401)).toEqual(["missing_api_key", "restricted_api_key"]);
    expect(namesAt(read, 422)).toEqual(["validation_error", "missing_required_parameter"]);
  });

  it("for a public route without parameters: only what any request can meet", () => {
    const health = route("GET", "/health", { schema: { security: [], response: {} } });
    expect(statuses(health)).toEqual([408, 422, 431, 500]);
  });

  it("for a route that takes a body: bad JSON, a body over the limit, another media type", () => {
    const write = route("PATCH", "/things/:id", { bodyLimit: 4096, schema: { body: z.object({ name: z.string() }), response: {} } });
    const failures = operationErrors(write, { catalog: [write], guarded: true, defaultBodyLimit: 1024 });
    expect([...failures.keys()]).toEqual(expect.arrayContaining([400, 413, 415]));
    expect(failures.get(413)!.reasons.join()).toContain("4096 bytes");
    expect(failures.get(422)!.names).toContain("missing_required_field");
  });

  it("for a route that creates: the idempotency key's failures", () => {
    const create = route("POST", "/things", { schema: { body: z.object({}), response: { 201: z.object({}) } } });
    expect(namesAt(create, 400)).toContain("invalid_idempotency_key");
    expect(namesAt(create, 409)).toEqual(["invalid_idempotent_request", "concurrent_idempotent_requests"]);
    expect(statuses(route("POST", "/things/:id/verify"))).not.toContain(409);
  });

  it("does not call a sending route restricted for a sending key", () => {
    expect(namesAt(route("POST", "/emails"), 401)).toEqual(["missing_api_key"]);
  });

  it("lists no key failures where the app checks no keys", () => {
    const read = route("GET", "/things/:id");
    expect(statuses(read, [read], false)).toEqual([400, 408, 422, 431, 500]);
  });

  it("lists 405 when the path template also matches a fixed path that takes other methods only", () => {
    const read = route("GET", "/things/:id");
    const special = route("POST", "/things/batch");
    expect(statuses(read, [read, special])).toContain(405);
    expect(statuses(read, [read, special, route("GET", "/things/batch")])).not.toContain(405);
  });

  it("adds what the route declares, and refuses a code errorTable does not know", () => {
    const locked = route("DELETE", "/locks/:name", { schema: { errors: { resource_locked: "Held." }, response: {} } });
    expect(operationErrors(locked, { catalog: [locked], guarded: true, defaultBodyLimit: 1024 }).get(409)).toEqual({
      names: ["resource_locked"],
      reasons: ["Held. (`resource_locked`)"],
    });
    const unknown = route("GET", "/odd", { schema: { errors: { no_such_code: "?" }, response: {} } });
    expect(() => operationErrors(unknown, { catalog: [unknown], guarded: true, defaultBodyLimit: 1024 })).toThrow(/no_such_code/);
  });
});
