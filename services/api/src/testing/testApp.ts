import { buildApp, type ApiDeps, type ApiInstance } from "../app.js";
import { capturingLogger } from "./capturingLogger.js";

/**
 * The app as `tidings serve` builds it, with dependencies fit for tests that never reach a handler's
 * storage. When `ApiDeps` grows (auth, handlers), this is the one place the route-wide tests learn it.
 */
export function buildTestApp(extra: Partial<ApiDeps> = {}): ApiInstance {
  return buildApp({ logger: capturingLogger("warn").logger, readiness: { eventStore: async () => {} }, ...extra });
}
