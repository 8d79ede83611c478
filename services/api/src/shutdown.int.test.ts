import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTestApp } from "./testing/testApp.js";
import { capturingLogger } from "./testing/capturingLogger.js";
import { handleShutdownSignals } from "./shutdown.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function slowServer() {
  const entered = deferred();
  const release = deferred();
  const app = buildTestApp({
    routes: [
      (r) =>
        void r.get("/slow", { schema: { response: { 200: z.object({ done: z.boolean() }) } } }, async () => {
          entered.resolve();
          await release.promise;
          return { done: true };
        }),
    ],
  });
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, base, entered, release };
}

const refusesConnections = (base: string) =>
  new Promise<boolean>((resolve) => {
    const { port } = new URL(base);
    const socket = connect(Number(port), "127.0.0.1");
    socket.on("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.on("error", () => resolve(true));
  });

async function until(condition: () => boolean | Promise<boolean>) {
  for (let i = 0; i < 200 && !(await condition()); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("graceful shutdown", () => {
  it("on SIGTERM stops accepting, lets the in-flight request finish, then closes the dependencies", async () => {
    const { app, base, entered, release } = await slowServer();
    const events: string[] = [];
    const { logger, lines } = capturingLogger();
    const shutdown = handleShutdownSignals({
      app,
      logger,
      closeDependencies: async () => void events.push("dependencies closed"),
      drainTimeoutMs: 5000,
      signals: ["SIGTERM"],
    });
    try {
      const inFlight = fetch(`${base}/slow`).then(async (res) => {
        events.push(`response ${res.status} ${JSON.stringify(await res.json())}`);
      });
      await entered.promise;
      process.emit("SIGTERM");
      await until(() => refusesConnections(base));
      expect(await refusesConnections(base)).toBe(true);
      expect(events).toEqual([]);

      release.resolve();
      await inFlight;
      await shutdown.shutdown("test");
      expect(events).toEqual(['response 200 {"done":true}', "dependencies closed"]);
      // The finished request's kept-alive connection must not hold the drain open until the timeout.
      expect(lines().map((line) => line.msg)).not.toContain("requests still running after the drain timeout; closing their connections");
    } finally {
      shutdown.removeSignalHandlers();
      release.resolve();
      await app.close();
    }
  });

  it("cuts a request that outlives the drain timeout, and still closes the dependencies", async () => {
    const { app, base, entered, release } = await slowServer();
    let closed = false;
    const shutdown = handleShutdownSignals({
      app,
      logger: capturingLogger().logger,
      closeDependencies: async () => void (closed = true),
      drainTimeoutMs: 100,
      signals: [],
    });
    try {
      const hung = fetch(`${base}/slow`).then(
        () => "answered",
        () => "cut",
      );
      await entered.promise;
      await shutdown.shutdown("test");
      expect(closed).toBe(true);
      expect(await hung).toBe("cut");
    } finally {
      release.resolve();
    }
  });
});
