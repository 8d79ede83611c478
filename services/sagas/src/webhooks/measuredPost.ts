import type { Metrics } from "@tidings/core";
import type { PostOutcome, PostRequest } from "./postWebhook.js";

type Post = (request: PostRequest) => Promise<PostOutcome>;

/** What an attempt came to, as a label: `succeeded`, the answer's class (`4xx`, `5xx`, …) or `no_answer`. */
export function attemptOutcome(outcome: Pick<PostOutcome, "succeeded" | "statusCode">): string {
  if (outcome.succeeded) return "succeeded";
  return outcome.statusCode === null ? "no_answer" : `${Math.floor(outcome.statusCode / 100)}xx`;
}

/**
 * Webhook attempts counted by outcome, with their latency (docs/operations.md, "Metrics"); never by
 * endpoint, whose URL is a customer's. With metrics off, `post` itself.
 */
export function measuredPost(post: Post, metrics: Metrics): Post {
  if (!metrics.enabled) return post;
  const attempts = metrics.counter({
    name: "tidings_webhook_attempts_total",
    help: "Webhook attempts, by outcome: succeeded, the failed answer's class (3xx, 4xx, 5xx) or no_answer (refused, timed out, private address)",
    labels: ["outcome"],
  });
  const latency = metrics.histogram({
    name: "tidings_webhook_attempt_seconds",
    help: "Time a webhook attempt took, from resolving the endpoint to its answer, by outcome",
    labels: ["outcome"],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  });
  return async (request) => {
    const outcome = await post(request);
    const labels = { outcome: attemptOutcome(outcome) };
    attempts.inc(labels);
    latency.observe(labels, outcome.durationMs / 1000);
    return outcome;
  };
}
