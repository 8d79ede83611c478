import { describe, expect, it } from "vitest";
import { z } from "zod";
import { listQuerySchema } from "./pagination.js";
import { testAppForFile } from "./testing/testApp.js";

const query = listQuerySchema({ status: z.enum(["completed"]).optional() });

const file = testAppForFile({
  routes: [
    (r) =>
      void r.get(
        "/imports",
        { schema: { querystring: query, response: { 200: z.object({ query: z.record(z.string(), z.unknown()) }) } } },
        async (req) => ({ query: req.query }),
      ),
  ],
});

const get = async (qs: string) => {
  const res = await file.app.inject({ method: "GET", url: `/imports?${qs}` });
  return { status: res.statusCode, body: res.json() };
};
const a = "0b8a3f5e-2a64-4c1e-9a51-4f5d2b7c9e10";

describe("list query parameters", () => {
  it("parses limit as a number and keeps the endpoint's filters", async () => {
    expect(await get(`limit=5&after=${a}&status=completed`)).toEqual({
      status: 200,
      body: { query: { limit: 5, after: a, status: "completed" } },
    });
  });

  it.each(["limit=0", "limit=101", "limit=abc", "limit=2.5", "limit=", "limit=1&limit=2"])(
    "refuses %s with a message naming limit",
    async (qs) => {
      expect(await get(qs)).toEqual({
        status: 422,
        body: { statusCode: 422, name: "validation_error", message: "`limit` must be an integer between 1 and 100." },
      });
    },
  );

  it("refuses after and before together", async () => {
    expect(await get(`after=${a}&before=${a}`)).toEqual({
      status: 422,
      body: { statusCode: 422, name: "validation_error", message: "`after` and `before` cannot be used together." },
    });
  });

  it("refuses a cursor that is not an id", async () => {
    expect((await get("before=nope")).body).toEqual({
      statusCode: 422,
      name: "validation_error",
      message: "`before` must be a valid UUID.",
    });
  });
});
