import { createServer, type Server } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWebhook, RESPONSE_KEPT_BYTES } from "./postWebhook.js";

/** A real receiver on loopback whose answer each path chooses. */
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === "/ok") res.writeHead(204).end();
      else if (req.url === "/redirect") res.writeHead(302, { location: "/ok" }).end("moved");
      else if (req.url === "/long") res.writeHead(500).end("x".repeat(5_000));
      else if (req.url === "/slow") setTimeout(() => res.writeHead(200).end("late"), 1_000);
      else res.writeHead(404).end("no such hook");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (path: string, timeoutMs?: number) =>
  postWebhook({ url: `${base}${path}`, headers: {}, body: "{}", allowPrivate: true, ...(timeoutMs ? { timeoutMs } : {}) });

describe("one webhook attempt over real HTTP", () => {
  it("counts any 2xx as a success", async () =>
    expect(await post("/ok")).toMatchObject({ succeeded: true, statusCode: 204, response: "" }));

  it("counts a redirect as a failure: it is not followed", async () =>
    expect(await post("/redirect")).toMatchObject({ succeeded: false, statusCode: 302, response: "moved" }));

  it("keeps the first 1 KB of the answer, and how long it took", async () => {
    const outcome = await post("/long");
    expect(outcome).toMatchObject({ succeeded: false, statusCode: 500 });
    expect(outcome.response).toHaveLength(RESPONSE_KEPT_BYTES);
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("fails an answer that comes after the time-out", async () => {
    const outcome = await post("/slow", 200);
    expect(outcome).toMatchObject({ succeeded: false, statusCode: null, response: "no answer within 200 ms" });
    expect(outcome.durationMs).toBeLessThan(900);
  });

  it("fails an endpoint nothing listens on, without an HTTP status", async () => {
    const outcome = await postWebhook({ url: "http://127.0.0.1:1/hook", headers: {}, body: "{}", allowPrivate: true });
    expect(outcome).toMatchObject({ succeeded: false, statusCode: null, response: expect.stringContaining("ECONNREFUSED") });
  });

  it("sends again on a new connection when the kept-alive one was closed by the receiver while idle", async () => {
    // A receiver that answers the first request of a connection and resets the connection at the next one,
    // as a server does that closed an idle connection just as the client used it.
    let connections = 0;
    const receiver = createTcpServer((socket) => {
      connections++;
      let answered = false;
      socket.on("data", () => {
        if (answered) return void socket.resetAndDestroy();
        answered = true;
        socket.write("HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
      const attempt = () => postWebhook({ url, headers: {}, body: "{}", allowPrivate: true });
      expect(await attempt()).toMatchObject({ succeeded: true, statusCode: 204 });
      expect(await attempt()).toMatchObject({ succeeded: true, statusCode: 204 });
      expect(connections).toBe(2);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
