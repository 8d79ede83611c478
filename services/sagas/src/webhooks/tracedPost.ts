import { failedWith, inSpan, tracingEnabled } from "@tidings/core";
import { attemptOutcome } from "./measuredPost.js";
import type { PostOutcome, PostRequest } from "./postWebhook.js";

type Post = (request: PostRequest) => Promise<PostOutcome>;

/**
 * Webhook attempts traced (docs/operations.md, "Traces"): a client span per POST, with the endpoint's host
 * and the answer's status; an attempt that did not succeed is marked failed. No trace context goes to the
 * endpoint: it is a customer's, outside the system the trace describes. With tracing off, `post` itself.
 */
export function tracedPost(post: Post): Post {
  if (!tracingEnabled()) return post;
  return (request) =>
    inSpan("POST", "client", { "http.request.method": "POST", ...endpointAttributes(request.url) }, async (span) => {
      const outcome = await post(request);
      if (outcome.statusCode !== null) span.setAttribute("http.response.status_code", outcome.statusCode);
      if (!outcome.succeeded) failedWith(span, attemptOutcome(outcome));
      return outcome;
    });
}

/** The endpoint's host and port; none for a URL that does not parse, which the attempt reports itself. */
function endpointAttributes(text: string) {
  if (!URL.canParse(text)) return {};
  const url = new URL(text);
  return { "server.address": url.hostname, "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)) };
}
