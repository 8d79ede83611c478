import { createServer, type Server } from "node:http";

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  /** The raw body, as signature verification needs it. */
  body: string;
  receivedAt: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  received: ReceivedWebhook[];
  /** Requests to `path` so far. */
  at(path: string): ReceivedWebhook[];
  /** The statuses `path` answers with, one per request; the last repeats (default 200). Each after `delayMs`. */
  answer(path: string, statuses: number[], delayMs?: number): void;
  /** Resolves once `path` has had `count` requests, or rejects after `timeoutMs`. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A real HTTP server on loopback, recording what the webhook saga POSTs to it. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const scripts = new Map<string, number[]>();
  const delays = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({
        path,
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      });
      const script = scripts.get(path) ?? [200];
      const status = script.length > 1 ? script.shift()! : script[0]!;
      const reply = () => res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : `failed with ${status}`);
      const delayMs = delays.get(path) ?? 0;
      if (delayMs > 0) setTimeout(reply, delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    at,
    answer(path, statuses, delayMs = 0) {
      scripts.set(path, [...statuses]);
      delays.set(path, delayMs);
    },
    async waitFor(path, count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (at(path).length < count) {
        if (Date.now() > deadline) throw new Error(`${path} had ${at(path).length} requests, expected ${count}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return at(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
