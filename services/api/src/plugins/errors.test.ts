import { describe, expect, it } from "vitest";
import { z } from "zod";
import { testAppForFile } from "../testing/testApp.js";

/** What the database throws when it is not ready or away for a moment, by the name of the route that throws it. */
const thrown: Record<string, Error> = {
  "missing-table": Object.assign(new Error('relation "api_keys" does not exist'), { code: "42P01" }),
  refused: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
  "shut-down": Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
  terminated: new Error("Connection terminated unexpectedly"),
};

const file = testAppForFile({
  routes: [
    (r) =>
      void r.get("/fails/:name", { schema: { params: z.object({ name: z.string() }), response: { 200: z.object({}) } } }, async (req) => {
        throw thrown[req.params.name] ?? new Error(`no error named ${req.params.name}`);
      }),
  ],
});

/** The answer to the route that throws `name`, and whether the error was logged as unexpected. */
async function failure(name: string) {
  const res = await file.app.inject({ method: "GET", url: `/fails/${name}` });
  const unexpected = file
    .lines()
    .some((line) => line.requestId === res.headers["x-request-id"] && line.msg === "request failed unexpectedly");
  return { body: res.json(), unexpected };
}

describe("read models not built yet", () => {
  it("answers 503 service_unavailable instead of a 500 when a read-model table is missing", async () => {
    const { body, unexpected } = await failure("missing-table");
    expect(unexpected).toBe(false);
    expect(body).toMatchObject({ statusCode: 503, name: "service_unavailable" });
    expect(body.message).toContain("projector");
  });
});

describe("the database away for a moment", () => {
  it("answers 503 service_unavailable instead of a 500 when the database refuses or drops the connection", async () => {
    for (const name of ["refused", "shut-down", "terminated"]) {
      const { body, unexpected } = await failure(name);
      expect(unexpected).toBe(false);
      expect(body).toEqual({ statusCode: 503, name: "service_unavailable", message: expect.stringContaining("retry") });
    }
  });
});
