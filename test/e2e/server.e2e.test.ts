import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Resend } from "resend";
import { startTestServer, type TestServer } from "../support/testServer.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

describe("a running Tidings server", () => {
  it("is alive and ready: event store, read database and bus all answer", async () => {
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${server.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready" });
  });

  it("answers the resend SDK with the bootstrap key", async () => {
    const resend = new Resend(server.token, { baseUrl: server.url });
    const { data, error } = await resend.apiKeys.list();
    expect(error).toBeNull();
    expect(data?.data.map((k) => k.name)).toContain("bootstrap");
  });

  it("gives the SDK the contract's error for an unknown key", async () => {
    const resend = new Resend(`re_${"x".repeat(40)}`, { baseUrl: server.url });
    const { data, error } = await resend.apiKeys.list();
    expect(data).toBeNull();
    expect(error).toEqual({ statusCode: 403, name: "invalid_api_key", message: expect.any(String) });
  });
});
