import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@tidings/core";
import type { Registry } from "prom-client";
import { bearerTokenAccepted } from "./bearerToken.js";

export interface MetricsServerOptions {
  registry: Registry;
  host: string;
  /** 0 takes a free port (tests). */
  port: number;
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token: string | undefined;
  logger: Logger;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in Prometheus's text format, on a listener of its own: apart from the api's port, so it can
 * stay on a private interface (METRICS_HOST) whatever the api is exposed to, and so the projector and sagas
 * roles, which serve no HTTP otherwise, are scraped the same way.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { registry, token, logger } = options;
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method !== "GET" || path !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("Only GET /metrics is served here.\n");
      return;
    }
    if (!bearerTokenAccepted(token, request.headers.authorization)) {
      response.writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" }).end("METRICS_TOKEN is required.\n");
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": registry.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, "metrics scrape failed");
        response.writeHead(500, { "content-type": "text/plain" }).end("The scrape failed; the log says why.\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  logger.info({ host: address.address, port: address.port }, "metrics listening");
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
