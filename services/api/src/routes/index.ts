import type { ApiDeps, ApiRoutes } from "../app.js";
import { healthRoutes } from "./health.js";

/**
 * Every route set the API serves, built from its dependencies. A new resource adds its line here (and
 * what it needs to `ApiDeps`), and the route-wide tests (schemas, OpenAPI, malformed input) cover it.
 */
export function apiRoutes(deps: ApiDeps): ApiRoutes[] {
  return [healthRoutes(deps.readiness, deps.readinessTimeoutMs ?? 2000)];
}
