import type { Config, Logger } from "@tidings/core";
import type { Tracing } from "@tidings/tracing";
import type { Role } from "./commands/serve.js";

/**
 * Tracing for a serving process when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces"), its
 * spans reported as its role's service: `tidings-api`, `tidings-projector`, `tidings-sagas`, or `tidings` for
 * every role in one process; OTEL_SERVICE_NAME overrides it. Unset, nothing of the SDK is imported.
 */
export async function startRoleTracing(config: Config, role: Role, logger: Logger): Promise<Tracing | undefined> {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined) return undefined;
  const { startTracing } = await import("@tidings/tracing");
  return startTracing({ endpoint, serviceName: role === "all" ? "tidings" : `tidings-${role}`, logger });
}
