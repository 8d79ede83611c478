import { context, diag, DiagLogLevel, propagation, trace } from "@opentelemetry/api";
import { markTracingEnabled, type Logger } from "@tidings/core";

export interface Tracing {
  /** Exports the spans still held, then unregisters the SDK: the process traces nothing more. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: spans go to its `/v1/traces`. */
  endpoint: string;
  /** The service name this process reports unless OTEL_SERVICE_NAME says another (`tidings-api`, …). */
  serviceName: string;
  /** Where the SDK's own warnings and errors go: an export the receiver refused or never answered. */
  logger: Logger;
}

/** Where OTLP/HTTP takes traces under a base endpoint: its `v1/traces`, as the OTLP exporter specification says. */
export const tracesUrl = (endpoint: string) => `${endpoint.replace(/\/+$/, "")}/v1/traces`;

/**
 * Registers OpenTelemetry's SDK for this process (docs/operations.md, "Traces"): spans batched and sent as
 * OTLP/HTTP JSON, W3C Trace Context propagation, and the async-local context that carries the active span
 * through awaits. The SDK's modules are imported here and only here, so a process without the endpoint
 * never loads them. The other OTEL_* variables (service name, resource attributes, exporter headers, batch
 * sizes and delays) are read from the environment by the SDK itself, as the specification says.
 */
export async function startTracing({ endpoint, serviceName, logger }: TracingOptions): Promise<Tracing> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resources] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const warn = (message: string, ...args: unknown[]) =>
    logger.warn(
      { endpoint, detail: [message, ...args.map(String)].join(" ") },
      "tracing: the OpenTelemetry SDK reported a problem, such as an export the receiver refused",
    );
  const quiet = () => {};
  diag.setLogger({ error: warn, warn, info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.WARN);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ "service.name": serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(endpoint) }))],
  });
  provider.register();
  markTracingEnabled(true);
  return {
    async shutdown() {
      markTracingEnabled(false);
      try {
        // A receiver gone at the end costs its last spans, not a failed stop.
        await provider
          .shutdown()
          .catch((error: unknown) => logger.warn({ err: error, endpoint }, "tracing: the last spans could not be exported"));
      } finally {
        // Another start in this process (a test's next server) registers its own provider.
        trace.disable();
        context.disable();
        propagation.disable();
        diag.disable();
      }
    },
  };
}
