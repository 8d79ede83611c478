import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { resolveEndpoint } from "./endpointAddress.js";

/** docs/wire-compatibility.md §8.4: a 2xx within this time is a success; anything else a failed attempt. */
export const WEBHOOK_TIMEOUT_MS = 15_000;
/** What an attempt keeps of the answer. */
export const RESPONSE_KEPT_BYTES = 1024;

export interface PostOutcome {
  succeeded: boolean;
  /** Null when no HTTP answer came. */
  statusCode: number | null;
  /** The first 1 KB of the answer, or what went wrong before one. */
  response: string;
  durationMs: number;
}

export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Aborted, the request is cut at once, answered or not: the outcome then says no answer came. */
  signal?: AbortSignal;
}

// Kept-alive connections per endpoint: most deliveries go to few endpoints, and a handshake per event
// would dominate the latency of a healthy receiver.
const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

/** Connects to the address already checked, never to whatever a second resolution would say. */
const pinnedLookup = (address: string, family: 4 | 6): LookupFunction =>
  ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;

/** One attempt: resolve and check the address, POST, keep the status and the first 1 KB of the answer. */
export async function postWebhook(request: PostRequest): Promise<PostOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutMs = request.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  try {
    const url = new URL(request.url);
    const target = await resolveEndpoint(url.hostname, request.allowPrivate);
    const timeout = AbortSignal.timeout(Math.max(1, timeoutMs - elapsed()));
    const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
    const { statusCode, response } = await send(url, target, request, signal);
    return { succeeded: statusCode >= 200 && statusCode < 300, statusCode, response, durationMs: elapsed() };
  } catch (error) {
    return { succeeded: false, statusCode: null, response: describe(error, timeoutMs), durationMs: elapsed() };
  }
}

function send(
  url: URL,
  target: { address: string; family: 4 | 6 },
  request: PostRequest,
  signal: AbortSignal,
  keptAlive = true,
): Promise<{ statusCode: number; response: string }> {
  const client = url.protocol === "https:" ? https : http;
  const agent = keptAlive ? agents[url.protocol === "https:" ? "https:" : "http:"] : false;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: "POST",
        agent,
        lookup: pinnedLookup(target.address, target.family),
        signal,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(request.body),
          "user-agent": "Tidings-Webhooks/1",
          ...request.headers,
        },
      },
      (res) => {
        const kept: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          if (size < RESPONSE_KEPT_BYTES) kept.push(chunk.subarray(0, RESPONSE_KEPT_BYTES - size));
          size += chunk.length;
        });
        res.on("end", () => resolve({ statusCode: res.statusCode ?? 0, response: Buffer.concat(kept).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the receiver closed while it sat idle (Node's server closes one after
      // 5 s) is reset as soon as it is used; the request never reached a handler, so it goes again at once
      // on a new connection instead of failing the attempt. A busy event loop misses the receiver's close
      // and hands out such a connection far more often.
      if (req.reusedSocket && error.code === "ECONNRESET") send(url, target, request, signal, false).then(resolve, reject);
      else reject(error);
    });
    req.end(request.body);
  });
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return `no answer within ${timeoutMs} ms`;
  return error instanceof Error ? error.message : String(error);
}
