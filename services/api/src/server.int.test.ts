import { beforeAll, describe, expect, it } from "vitest";
import { isUuid } from "@tidings/core";
import { echoRoutes } from "./testing/echoRoutes.js";
import { testAppForFile } from "./testing/testApp.js";

const file = testAppForFile({ routes: [echoRoutes] });
let base: string;

beforeAll(async () => {
  base = await file.app.listen({ host: "127.0.0.1", port: 0 });
});

/** The request the `resend` SDK makes (docs/wire-compatibility.md §1.2): JSON content type on every call, no body when there is none. */
const sdkFetch = (path: string, method = "GET") =>
  fetch(`${base}${path}`, {
    method,
    headers: { Authorization: "Bearer re_test", "Content-Type": "application/json", "User-Agent": "resend-node:6.38.0" },
  });

describe("over a real socket", () => {
  it("answers a body-less POST carrying Content-Type: application/json", async () => {
    const res = await sdkFetch("/domains/b1/verify", "POST");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: "b1" });
    expect(isUuid(res.headers.get("x-request-id") ?? "")).toBe(true);
  });

  it("keeps + and @ of an email interpolated raw into the path", async () => {
    const res = await sdkFetch("/contacts/jane+2@example.com");
    expect(await res.json()).toEqual({ key: "jane+2@example.com" });
  });

  it("answers an unknown path with a JSON error body the SDK returns verbatim", async () => {
    const res = await sdkFetch("/emails/receiving/nope/nothing");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toMatchObject({ statusCode: 404, name: "not_found" });
  });

  it("answers bytes that are not HTTP with a JSON error in the contract's shape", async () => {
    const { connect } = await import("node:net");
    const { port } = new URL(base);
    const reply = await new Promise<string>((resolve, reject) => {
      let data = "";
      const socket = connect(Number(port), "127.0.0.1", () => socket.write("NONSENSE\r\n\r\n"));
      socket.on("data", (chunk) => (data += chunk.toString()));
      socket.on("close", () => resolve(data));
      socket.on("error", reject);
    });
    expect(reply).toMatch(/^HTTP\/1.1 400 /);
    expect(JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4))).toMatchObject({ statusCode: 400, name: "validation_error" });
  });
});
