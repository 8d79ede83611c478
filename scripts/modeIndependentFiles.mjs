// Test files whose behaviour does not depend on the deployment mode, which `npm test` runs once, in server
// mode, when it runs both modes (without PostgreSQL and NATS they run embedded like every other file).
//
// E2e files whose behaviour does not depend on the deployment mode. They drive the API, the audit CLI or a
// browser through the same ports in either mode, and what sits under those ports in embedded mode (PGlite
// event store and read models, the in-process bus, the outbox) is proven by the contract suites of the int
// tier, which run in both modes, and by the e2e files left out of this list: every saga (delivery,
// broadcasts, imports, automations, webhooks, inbound mail), the embedded-only CLI files, the erasure
// canary, which searches the embedded bus table, and the browser tests, which their issues ask for in both
// modes (but for their screenshot tests: `itScreenshots`, test/support/dashboardSuite.ts).
export const modeIndependentE2e = [
  "apiKeys",
  "audience",
  "auditIntegrity",
  "auditState",
  "domains",
  "emailMetrics",
  "emailShares",
  "emails",
  "eventMetadata",
  "logs",
  // The MCP layer calls the API's routes in-process; the sends and broadcast it drives are each proven in both modes by their own files.
  "mcp",
  "metrics",
  "templates",
  "tracking",
  "webhookPrivateEndpoints",
  "webhookResourceEvents",
  "webhooks",
].map((name) => `test/e2e/${name}.e2e.test.ts`);

// The api's int files that drive its routes, dashboard pages and OpenAPI document through `app.inject` over
// the stores of `testServices.ts`: the same SQL and the same projections on PGlite as on PostgreSQL, whose
// adapters the engine's and the stores' int files (which run in both modes) hold to one contract. Left out,
// so run in both modes: the files that reach what differs between the modes (a second pool as another
// instance, the rate limit's buckets, idempotency's races, the request logs' writer, start-up and shutdown),
// and every file outside the api. In embedded mode these were some 430 s of the tier's worker time of
// 2,420 (CI of 2026-11-29), the fuzz file 86 s of it.
export const modeIndependentInt = [
  "services/api/src/audit/resourceHistory.int.test.ts",
  "services/api/src/dashboard/*.int.test.ts",
  "services/api/src/pagination.int.test.ts",
  "services/api/src/plugins/openapiDocument.int.test.ts",
  "services/api/src/routes/*.int.test.ts",
  "services/api/src/testing/everyRoute.int.test.ts",
  "services/api/src/testing/fuzz/openApiFuzz.int.test.ts",
];
