import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retryAfterMs, sourceApi, SourceApiError } from "./sourceApi.js";

/** A source that refuses the first request to /limited with 429 and `retry-after: 1`, and pages /items two at a time. */
let server: Server;
let base = "";
const arrivals: { path: string; at: number }[] = [];
let limitedOnce = false;

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url!, "http://x");
    arrivals.push({ path: url.pathname, at: performance.now() });
    response.setHeader("content-type", "application/json");
    if (request.headers.authorization !== "Bearer re_key") return void response.writeHead(401).end("{}");
    if (url.pathname === "/limited" && !limitedOnce) {
      limitedOnce = true;
      return void response.writeHead(429, { "retry-after": "1" }).end("{}");
    }
    if (url.pathname === "/items") {
      const all = ["a", "b", "c", "d", "e"].map((id) => ({ id }));
      const after = url.searchParams.get("after");
      const start = after ? all.findIndex((i) => i.id === after) + 1 : 0;
      const data = all.slice(start, start + 2);
      return void response.end(JSON.stringify({ object: "list", data, has_more: start + 2 < all.length }));
    }
    if (url.pathname === "/missing") return void response.writeHead(404).end("{}");
    response.end(JSON.stringify({ id: "one" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("sourceApi", () => {
  it("spaces its requests at least 1/rate s apart", async () => {
    arrivals.length = 0;
    const api = sourceApi({ baseUrl: base, key: "re_key", rate: 20 });
    const started = performance.now();
    for (let i = 0; i < 6; i++) await api.get("/thing");
    // Measured from before the first was sent, since where requests arrive a late one (the first, which
    // opens the connection, on a loaded machine) shortens the gap after it: the sixth is sent at least five
    // spacings after the first, so it cannot arrive sooner (less the timers' millisecond granularity).
    expect(arrivals.at(-1)!.at - started).toBeGreaterThanOrEqual(5 * 50 - 5);
    expect(api.counts).toEqual({ requests: 6, rateLimited: 0 });
  });

  it("waits out a 429 for its retry-after, then sends the request again", async () => {
    arrivals.length = 0;
    const api = sourceApi({ baseUrl: base, key: "re_key", rate: 100 });
    expect(await api.get("/limited")).toEqual({ id: "one" });
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]!.at - arrivals[0]!.at).toBeGreaterThanOrEqual(990);
    expect(api.counts).toEqual({ requests: 2, rateLimited: 1 });
  });

  it("reads every page of a list, and says undefined for a 404 and throws for another failure", async () => {
    const api = sourceApi({ baseUrl: base, key: "re_key", rate: 100 });
    expect((await api.list("/items")).map((i) => i.id)).toEqual(["a", "b", "c", "d", "e"]);
    expect(await api.get("/missing")).toBeUndefined();
    await expect(sourceApi({ baseUrl: base, key: "wrong", rate: 100 }).get("/thing")).rejects.toBeInstanceOf(SourceApiError);
  });

  it("reads retry-after as seconds or as a date", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 7_000)).toBe(3000);
    expect(retryAfterMs(null)).toBe(1000);
    expect(retryAfterMs("soon")).toBe(1000);
  });
});
