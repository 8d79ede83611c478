import { describe, expect, it } from "vitest";
import { buildTransportApp } from "../app.js";
import type { ReadinessChecks } from "./health.js";
import { capturingLogger } from "../testing/capturingLogger.js";

async function ask(path: string, readiness: ReadinessChecks) {
  const { logger, lines } = capturingLogger();
  const app = buildTransportApp({ logger, readiness, readinessTimeoutMs: 50 });
  try {
    const res = await app.inject({ method: "GET", url: path });
    return { status: res.statusCode, body: res.json(), lines: lines() };
  } finally {
    await app.close();
  }
}

describe("health and readiness", () => {
  it("/health answers without running any check", async () => {
    let ran = false;
    const res = await ask("/health", { eventStore: async () => void (ran = true) });
    expect(res).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(ran).toBe(false);
  });

  it("/ready answers 200 when every check passes", async () => {
    const res = await ask("/ready", { eventStore: async () => {}, readDatabase: async () => {}, bus: async () => {} });
    expect(res).toMatchObject({ status: 200, body: { status: "ready", checks: { eventStore: "ok", readDatabase: "ok", bus: "ok" } } });
  });

  it("/ready answers 503 naming the failed and the hung checks, and logs why", async () => {
    const res = await ask("/ready", {
      eventStore: async () => {},
      readDatabase: async () => {
        throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
      },
      bus: () => new Promise(() => {}),
    });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      statusCode: 503,
      name: "service_unavailable",
      message: "Not ready: `readDatabase` failed, `bus` timed out after 50 ms.",
    });
    expect(JSON.stringify(res.body)).not.toContain("ECONNREFUSED");
    expect(JSON.stringify(res.lines)).toContain("ECONNREFUSED");
  });

  it("/ready counts a check that throws synchronously as failed", async () => {
    const res = await ask("/ready", {
      bus: () => {
        throw new Error("not connected");
      },
    });
    expect(res.body.message).toBe("Not ready: `bus` failed.");
  });
});
