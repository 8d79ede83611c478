import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TidingsError, isUuid } from "@tidings/core";
import { created } from "./replies.js";
import { echoRoutes } from "./testing/echoRoutes.js";
import { testAppForFile } from "./testing/testApp.js";

const file = testAppForFile({
  routes: [
    echoRoutes,
    (r) => {
      r.post(
        "/emails",
        {
          schema: {
            body: z.object({
              to: z.string(),
              subject: z.string().min(1),
              attachments: z.array(z.object({ filename: z.string() })).optional(),
            }),
            response: { 200: z.object({ id: z.string() }) },
          },
        },
        async () => ({ id: "e1" }),
      );
      // Registered before the literal route on purpose: the router must not care about order.
      r.post("/events/:idOrName", { schema: { response: { 200: z.object({ route: z.string() }) } } }, async () => ({ route: "param" }));
      r.post("/events/send", { schema: { response: { 200: z.object({ route: z.string() }) } } }, async () => ({ route: "literal" }));
      r.post(
        "/uploads",
        {
          bodyLimit: 2 * 1024 * 1024,
          schema: { body: z.object({ data: z.string() }), response: { 200: z.object({ size: z.number() }) } },
        },
        async (req) => ({
          size: req.body.data.length,
        }),
      );
      r.post(
        "/things",
        { schema: { body: z.object({ name: z.string() }), response: { 201: z.object({ object: z.literal("thing"), id: z.string() }) } } },
        async (req, reply) => created(reply, { object: "thing" as const, id: req.body.name }),
      );
      r.get("/fails/domain", { schema: { response: { 200: z.object({}) } } }, async () => {
        throw new TidingsError("not_found", "Template not found");
      });
      r.get("/fails/unmapped", { schema: { response: { 200: z.object({}) } } }, async () => {
        throw new TidingsError("no_such_code", "should not leak");
      });
      r.get("/fails/crash", { schema: { response: { 200: z.object({}) } } }, async () => {
        throw new Error("secret connection string postgres://u:p@db");
      });
      r.get("/fails/empty", async (_req, reply) => reply.send(undefined));
    },
  ],
});

describe("request bodies", () => {
  it("accepts a body-less POST sent with Content-Type: application/json, as the resend SDK does", async () => {
    const res = await file.app.inject({ method: "POST", url: "/domains/d1/verify", headers: { "content-type": "application/json" } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: "d1" });
  });

  it("answers malformed JSON with 400 validation_error saying what is wrong", async () => {
    const res = await file.app.inject({
      method: "POST",
      url: "/emails",
      headers: { "content-type": "application/json" },
      payload: '{"to": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      name: "validation_error",
      message: expect.stringMatching(/^The request body is not valid JSON: .+/),
    });
  });

  it("refuses a __proto__ key", async () => {
    const res = await file.app.inject({
      method: "POST",
      url: "/emails",
      headers: { "content-type": "application/json" },
      payload: '{"to":"a","subject":"s","__proto__":{"x":1}}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain("`__proto__`");
  });

  it("answers a body over the default 1 MiB limit with 413 in the error shape", async () => {
    const res = await file.app.inject({
      method: "POST",
      url: "/emails",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ to: "x".repeat(1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      statusCode: 413,
      name: "validation_error",
      message: "The request body is larger than the limit of 1048576 bytes for this endpoint.",
    });
  });

  it("lets a route raise its own body limit", async () => {
    const data = "x".repeat(1536 * 1024);
    const res = await file.app.inject({ method: "POST", url: "/uploads", payload: { data } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ size: data.length });
  });

  it("answers an unsupported Content-Type with 415 in the error shape", async () => {
    const res = await file.app.inject({ method: "POST", url: "/emails", headers: { "content-type": "text/plain" }, payload: "to=a" });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ statusCode: 415, name: "validation_error" });
  });
});

describe("validation errors", () => {
  it("names a missing field: 422 missing_required_field, worded like the reference API", async () => {
    const res = await file.app.inject({ method: "POST", url: "/emails", payload: { subject: "Hi" } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ statusCode: 422, name: "missing_required_field", message: "Missing `to` field." });
  });

  it("names a field of the wrong type: 422 validation_error", async () => {
    const res = await file.app.inject({ method: "POST", url: "/emails", payload: { to: 42, subject: "Hi" } });
    expect(res.json()).toEqual({ statusCode: 422, name: "validation_error", message: "`to` must be a string." });
  });

  it("names a nested field by its path", async () => {
    const res = await file.app.inject({
      method: "POST",
      url: "/emails",
      payload: { to: "a", subject: "s", attachments: [{ filename: 1 }] },
    });
    expect(res.json().message).toBe("`attachments[0].filename` must be a string.");
  });

  it("says when the whole body is missing", async () => {
    const res = await file.app.inject({ method: "POST", url: "/emails" });
    expect(res.json()).toEqual({ statusCode: 422, name: "missing_required_field", message: "The request body is missing." });
  });

  it("says when the body is not an object", async () => {
    const res = await file.app.inject({ method: "POST", url: "/emails", payload: [1, 2] });
    expect(res.json()).toEqual({ statusCode: 422, name: "validation_error", message: "The request body must be an object." });
  });
});

describe("errors raised by routes", () => {
  it("maps a TidingsError through the error table", async () => {
    const res = await file.app.inject({ method: "GET", url: "/fails/domain" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ statusCode: 404, name: "not_found", message: "Template not found" });
  });

  it("answers an unexpected exception with 500 application_error, logged with the request id, without internals", async () => {
    const res = await file.app.inject({ method: "GET", url: "/fails/crash" });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body).toMatchObject({ statusCode: 500, name: "application_error" });
    expect(JSON.stringify(body)).not.toContain("postgres");
    const logged = file.lines().find((line) => line.msg === "request failed unexpectedly");
    expect(logged?.requestId).toBe(res.headers["x-request-id"]);
    expect(JSON.stringify(logged)).toContain("secret connection string");
  });

  it("treats a code missing from the error table as unexpected", async () => {
    const res = await file.app.inject({ method: "GET", url: "/fails/unmapped" });
    expect(res.statusCode).toBe(500);
    expect(res.json().message).not.toContain("should not leak");
    expect(file.lines().some((line) => String(line.msg).includes("`no_such_code` has no row in errorTable"))).toBe(true);
  });

  it("never lets a route answer with an empty body", async () => {
    const res = await file.app.inject({ method: "GET", url: "/fails/empty" });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ statusCode: 500, name: "application_error" });
  });

  it("answers a create with 201 through the reply helper", async () => {
    const res = await file.app.inject({ method: "POST", url: "/things", payload: { name: "t1" } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ object: "thing", id: "t1" });
  });
});

describe("routing", () => {
  it("keeps + and @ in a path segment as sent", async () => {
    const res = await file.app.inject({ method: "GET", url: "/contacts/jane+2@example.com" });
    expect(res.json()).toEqual({ key: "jane+2@example.com" });
  });

  it("decodes percent-encoded + and @", async () => {
    const res = await file.app.inject({ method: "GET", url: "/contacts/jane%2B2%40example.com" });
    expect(res.json()).toEqual({ key: "jane+2@example.com" });
  });

  it("tolerates the double slash of a base URL ending in / and a trailing slash", async () => {
    expect((await file.app.inject({ method: "GET", url: "//contacts/a@b.co" })).json()).toEqual({ key: "a@b.co" });
    expect((await file.app.inject({ method: "GET", url: "/contacts/a@b.co/" })).json()).toEqual({ key: "a@b.co" });
  });

  it("lets a literal path win over a parameter at the same position", async () => {
    expect((await file.app.inject({ method: "POST", url: "/events/send" })).json()).toEqual({ route: "literal" });
    expect((await file.app.inject({ method: "POST", url: "/events/signed-up" })).json()).toEqual({ route: "param" });
  });

  it("answers an unknown route with 404 not_found", async () => {
    const res = await file.app.inject({ method: "GET", url: "/nothing/here?x=1" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ statusCode: 404, name: "not_found", message: "The route GET /nothing/here does not exist." });
  });

  it("answers a wrong method on a known path with 405 method_not_allowed and Allow", async () => {
    const res = await file.app.inject({ method: "DELETE", url: "/emails" });
    expect(res.statusCode).toBe(405);
    expect(res.json()).toMatchObject({ statusCode: 405, name: "method_not_allowed" });
    expect(res.headers.allow).toBe("POST");
  });

  it("answers a malformed percent-encoding with 400 in the error shape", async () => {
    const res = await file.app.inject({ method: "GET", url: "/contacts/%E0%A4%A" });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, name: "validation_error" });
    expect(isUuid(String(res.headers["x-request-id"]))).toBe(true);
  });
});

describe("request ids", () => {
  it("gives every response a uuid x-request-id", async () => {
    const res = await file.app.inject({ method: "GET", url: "/health" });
    expect(isUuid(String(res.headers["x-request-id"]))).toBe(true);
  });

  it("never takes a client's request id, which could collide with another request's log", async () => {
    const given = "0b8a3f5e-2a64-4c1e-9a51-4f5d2b7c9e10";
    const res = await file.app.inject({ method: "GET", url: "/health", headers: { "x-request-id": given } });
    expect(isUuid(String(res.headers["x-request-id"]))).toBe(true);
    expect(res.headers["x-request-id"]).not.toBe(given);
  });

  it("logs one line per completed request, labelled with the request id", async () => {
    const res = await file.app.inject({ method: "GET", url: "/health" });
    const line = file.lines().find((l) => l.requestId === res.headers["x-request-id"] && l.msg === "request completed");
    expect(line).toMatchObject({ method: "GET", url: "/health", statusCode: 200 });
  });

  it("writes a path segment that holds an email address as [address], never the address", async () => {
    for (const path of ["/contacts/alice.canary@example.com", "/contacts/Alice.Canary%40example.com"]) {
      const res = await file.app.inject({ method: "GET", url: `${path}?x=1` });
      const line = file.lines().find((l) => l.requestId === res.headers["x-request-id"] && l.msg === "request completed");
      expect(line).toMatchObject({ method: "GET", url: "/contacts/[address]" });
      expect(JSON.stringify(file.lines()).toLowerCase()).not.toContain("canary");
    }
  });
});
