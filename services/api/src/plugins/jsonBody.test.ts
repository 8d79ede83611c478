import { describe, expect, it } from "vitest";
import { z } from "zod";
import { testAppForFile } from "../testing/testApp.js";
import { maxJsonDepth } from "./jsonBody.js";

const received: unknown[] = [];
const file = testAppForFile({
  routes: [
    (r) => {
      r.post(
        "/emails",
        { schema: { body: z.object({ subject: z.string() }), response: { 200: z.object({ ok: z.boolean() }) } } },
        async (request) => {
          received.push(request.body);
          return { ok: true };
        },
      );
      r.post("/anything", { schema: { response: { 200: z.object({ ok: z.boolean() }) } } }, async (request) => {
        received.push(request.body);
        return { ok: true };
      });
    },
  ],
});

const json = { "content-type": "application/json" };
const nested = (levels: number, open = "[", close = "]") => `${open.repeat(levels)}${close.repeat(levels)}`;

describe("JSON bodies nested too deeply", () => {
  it.each([
    ["POST", "/emails"],
    ["PUT", "/emails"],
    ["POST", "/no/such/route"],
    ["POST", "/anything"],
  ] as const)("%s %s answers 400 naming the limit, and logs no stack trace", async (method, url) => {
    const before = file.lines().length;
    const res = await file.app.inject({ method, url, headers: json, payload: nested(8000) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      name: "validation_error",
      message: `The request body nests arrays and objects deeper than the limit of ${maxJsonDepth} levels.`,
    });
    expect(
      file
        .lines()
        .slice(before)
        .filter((line) => Number(line.level) >= 50),
    ).toEqual([]);
  });

  it("counts objects and arrays alike, and takes a body exactly at the limit", async () => {
    const atLimit = `${'{"a":'.repeat(maxJsonDepth - 1)}[1]${"}".repeat(maxJsonDepth - 1)}`;
    expect((await file.app.inject({ method: "POST", url: "/anything", headers: json, payload: atLimit })).statusCode).toBe(200);
    const over = `${'{"a":'.repeat(maxJsonDepth)}[1]${"}".repeat(maxJsonDepth)}`;
    expect((await file.app.inject({ method: "POST", url: "/anything", headers: json, payload: over })).statusCode).toBe(400);
  });

  it("does not count brackets inside strings, escaped quotes included", async () => {
    const subject = `${"[".repeat(500)}\\"${"{".repeat(500)}`;
    const res = await file.app.inject({ method: "POST", url: "/emails", headers: json, payload: `{"subject":"${subject}"}` });
    expect(res.statusCode).toBe(200);
    expect(received.at(-1)).toEqual({ subject: `${"[".repeat(500)}"${"{".repeat(500)}` });
  });
});

describe("JSON bodies that are not valid UTF-8", () => {
  it.each([
    ["a lone continuation byte", [0x80]],
    ["a truncated sequence", [0xe2, 0x82]],
    ["an overlong encoding", [0xc0, 0xaf]],
    ["an encoded surrogate", [0xed, 0xa0, 0x80]],
  ])("answers 400 for %s and stores nothing", async (_name, bytes) => {
    const count = received.length;
    const payload = Buffer.concat([Buffer.from('{"subject":"'), Buffer.from(bytes), Buffer.from('( bad"}')]);
    const res = await file.app.inject({ method: "POST", url: "/emails", headers: json, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ statusCode: 400, name: "validation_error", message: "The request body is not valid UTF-8." });
    expect(received.length).toBe(count);
  });

  it("takes multi-byte UTF-8 and a byte order mark", async () => {
    const payload = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"subject":"Grüße 📬"}')]);
    const res = await file.app.inject({ method: "POST", url: "/emails", headers: json, payload });
    expect(res.statusCode).toBe(200);
    expect(received.at(-1)).toEqual({ subject: "Grüße 📬" });
  });
});
