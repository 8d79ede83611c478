import type { Metrics } from "@tidings/core";
import type { ApiInstance } from "../app.js";

const methods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The labels of one request: the route's template (`/emails/:id`), never the path, which holds ids and
 * addresses; a request no route matched is `unmatched`, so probing paths adds no series. An unknown method
 * is `other` for the same reason.
 */
export function requestLabels(routeTemplate: string | undefined, method: string, statusCode: number) {
  return {
    route: routeTemplate ?? "unmatched",
    method: methods.has(method) ? method : "other",
    status: String(statusCode),
  };
}

/** Counts every request and observes its latency, when metrics are on (docs/operations.md, "Metrics"). */
export function recordRequestMetrics(app: ApiInstance, metrics: Metrics): void {
  const requests = metrics.counter({
    name: "tidings_http_requests_total",
    help: "HTTP requests answered, by route template, method and status",
    labels: ["route", "method", "status"],
  });
  const latency = metrics.histogram({
    name: "tidings_http_request_duration_seconds",
    help: "Time from a request's arrival to its reply, by route template, method and status",
    labels: ["route", "method", "status"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  app.addHook("onResponse", (request, reply, done) => {
    const labels = requestLabels(request.routeOptions.url, request.method, reply.statusCode);
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
