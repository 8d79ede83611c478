import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";

/**
 * The tracing port (docs/operations.md, "Traces"): spans through OpenTelemetry's API, which records nothing
 * until @tidings/tracing registers an SDK, as it does only when OTEL_EXPORTER_OTLP_ENDPOINT is set. With
 * tracing off the wrappers that add spans (event store, bus, mail transport, api requests) are not put in
 * place at all, and the helpers below call straight through. Span names are operations and templates,
 * never ids or addresses; those go in attributes.
 */
export type { Span };

export type SpanKindName = "server" | "client" | "producer" | "consumer" | "internal";

const kinds: Record<SpanKindName, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

/** W3C Trace Context as headers (https://www.w3.org/TR/trace-context/): how a trace crosses a process. */
export type TraceHeaders = Record<string, string>;

let on = false;

/** Whether an SDK records spans in this process: the wrappers that add spans are put in place only then. */
export const tracingEnabled = () => on;

/** For @tidings/tracing alone: set once its provider is registered, unset when it shuts down. */
export function markTracingEnabled(enabled: boolean): void {
  on = enabled;
}

const tracer = () => trace.getTracer("tidings");

/** `headers`' trace context when they carry one, else the active one. */
function parentOf(headers: TraceHeaders | undefined): Context {
  const active = context.active();
  return headers?.traceparent === undefined ? active : propagation.extract(active, headers);
}

/**
 * A span started under `parent` (else the active span) and not ended: for a span whose end another
 * callback sees, as an HTTP request's. `run` makes it the active span for what is called inside.
 */
export function startSpan(
  name: string,
  kind: SpanKindName,
  attributes: Attributes,
  parent?: TraceHeaders,
): { span: Span; run<T>(work: () => T): T } {
  const parentContext = parentOf(parent);
  const span = tracer().startSpan(name, { kind: kinds[kind], attributes }, parentContext);
  const spanContext = trace.setSpan(parentContext, span);
  return { span, run: (work) => context.with(spanContext, work) };
}

/**
 * `work` inside a span under `parent` (else the active span), ended when `work` settles; a throw marks it
 * failed and goes on. With tracing off, `work` itself.
 */
export async function inSpan<T>(
  name: string,
  kind: SpanKindName,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  parent?: TraceHeaders,
): Promise<T> {
  if (!on) return work(idle);
  const { span, run } = startSpan(name, kind, attributes, parent);
  try {
    return await run(() => work(span));
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Marks `span` failed by `error`. */
function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Marks `span` failed with `message`, an outcome rather than a throw (a bounce, a 5xx). */
export function failedWith(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** The active span's context as W3C headers; empty when no span is active or tracing is off. */
export function activeTraceHeaders(): TraceHeaders {
  const headers: TraceHeaders = {};
  if (on) propagation.inject(context.active(), headers);
  return headers;
}

/**
 * `work` under the trace `traceparent` names (from an event's metadata) when no span is active: how work a
 * timer takes up later (a retry) continues the trace of what it continues. Under an active span, as a
 * message's handling is, `work` stays in that span's trace.
 */
export function continuingTrace<T>(traceparent: string | undefined, work: () => T): T {
  if (!on || traceparent === undefined || trace.getSpan(context.active()) !== undefined) return work();
  return context.with(parentOf({ traceparent }), work);
}

const idle = trace.wrapSpanContext({ traceId: "00000000000000000000000000000000", spanId: "0000000000000000", traceFlags: 0 });
