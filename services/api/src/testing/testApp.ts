import { buildTransportApp, type ApiInstance, type TransportDeps } from "../app.js";
import { capturingLogger } from "./capturingLogger.js";

/**
 * The HTTP layer as `tidings serve` builds it, without auth and resources, for tests of wire behaviour
 * with routes of their own. Tests of the real API build it with `createTestServices` (testServices.ts).
 */
export function buildTestApp(extra: Partial<TransportDeps> = {}): ApiInstance {
  return buildTransportApp({ logger: capturingLogger("warn").logger, readiness: { eventStore: async () => {} }, ...extra });
}
