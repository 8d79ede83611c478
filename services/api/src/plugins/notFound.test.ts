import { describe, expect, it } from "vitest";
import { z } from "zod";
import { testAppForFile } from "../testing/testApp.js";

const reached: string[] = [];

const file = testAppForFile({
  routes: [
    (r) => {
      const ok = { schema: { response: { 200: z.object({ route: z.string() }) } } };
      const answer = (route: string) => async () => (reached.push(route), { route });
      r.get("/emails/:id", ok, answer("GET /emails/:id"));
      r.patch("/emails/:id", ok, answer("PATCH /emails/:id"));
      r.post("/emails/batch", ok, answer("POST /emails/batch"));
      r.delete("/contacts/:idOrEmail", ok, answer("DELETE /contacts/:idOrEmail"));
      r.post("/contacts/imports", ok, answer("POST /contacts/imports"));
      r.get("/contacts/imports", ok, answer("GET /contacts/imports"));
    },
  ],
});

describe("a fixed path asked with a method only a parametric route has", () => {
  it.each([
    ["GET", "/emails/batch", "POST"],
    ["PATCH", "/emails/batch/", "POST"],
    ["GET", "//emails//batch", "POST"],
    ["DELETE", "/contacts/imports", "POST, GET, HEAD"],
  ] as const)("%s %s answers 405 with Allow: %s, and no route runs", async (method, url, allow) => {
    const before = reached.length;
    const res = await file.app.inject({ method, url });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.json()).toMatchObject({ statusCode: 405, name: "method_not_allowed" });
    expect(reached.length).toBe(before);
  });

  it("leaves other values of the parameter to the parametric route", async () => {
    expect((await file.app.inject({ method: "GET", url: "/emails/4b0c1f2e-8d7a-4c59-9b1e-2f3a4d5e6f70" })).json()).toEqual({
      route: "GET /emails/:id",
    });
    expect((await file.app.inject({ method: "DELETE", url: "/contacts/someone@example.com" })).json()).toEqual({
      route: "DELETE /contacts/:idOrEmail",
    });
    expect((await file.app.inject({ method: "GET", url: "/emails/batches" })).json()).toEqual({ route: "GET /emails/:id" });
  });

  it("still serves the fixed path's own methods", async () => {
    expect((await file.app.inject({ method: "POST", url: "/emails/batch" })).json()).toEqual({ route: "POST /emails/batch" });
    expect((await file.app.inject({ method: "GET", url: "/contacts/imports" })).json()).toEqual({ route: "GET /contacts/imports" });
  });
});
