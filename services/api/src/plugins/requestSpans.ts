import type { FastifyRequest } from "fastify";
import { failedWith, startSpan, type Span, type TraceHeaders } from "@tidings/core";
import type { ApiInstance } from "../app.js";

/**
 * A server span for every request, when tracing is on (docs/operations.md, "Traces"), named for the route's
 * template (`POST /emails`), never the path, which holds ids and addresses. It is the active span while the
 * request's hooks and handler run, so the appends they make, and the events those carry, are in its trace;
 * a client's W3C `traceparent` header makes it part of the client's. The request id joins it to the request
 * log and to the `requestId` of the events the request caused.
 */
export function traceRequests(app: ApiInstance): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  const end = (request: FastifyRequest, statusCode?: number) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    if (statusCode === undefined) failedWith(span, "the client went away before the reply");
    else {
      span.setAttribute("http.response.status_code", statusCode);
      if (statusCode >= 500) failedWith(span, String(statusCode));
    }
    span.end();
  };
  app.addHook("onRequest", (request, _reply, done) => {
    const route = request.routeOptions.url;
    const { span, run } = startSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      "server",
      {
        "http.request.method": request.method,
        "url.scheme": request.protocol,
        "tidings.request.id": request.id,
        ...(route === undefined ? {} : { "http.route": route }),
      },
      clientTrace(request),
    );
    spans.set(request, span);
    run(done);
  });
  app.addHook("onResponse", (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook("onRequestAbort", (request, done) => {
    end(request);
    done();
  });
}

/** The client's trace context, when its headers carry one. */
function clientTrace(request: FastifyRequest): TraceHeaders | undefined {
  const { traceparent, tracestate } = request.headers;
  if (typeof traceparent !== "string") return undefined;
  return typeof tracestate === "string" ? { traceparent, tracestate } : { traceparent };
}
