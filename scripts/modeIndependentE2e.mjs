// E2e files whose behaviour does not depend on the deployment mode. They drive the API, the audit CLI or a
// browser through the same ports in either mode, and what sits under those ports in embedded mode (PGlite
// event store and read models, the in-process bus, the outbox) is proven by the contract suites of the int
// tier, which runs in both modes, and by the e2e files left out of this list: every saga (delivery,
// broadcasts, imports, automations, webhooks, inbound mail), the embedded-only CLI files, the erasure
// canary, which searches the embedded bus table, and the browser tests, which their issues ask for in both
// modes (but for their screenshot tests: `itScreenshots`, test/support/dashboardSuite.ts).
// When `npm test` runs the server tier as well, the embedded tier leaves these to it and says so; without
// PostgreSQL and NATS they run embedded like every other file.
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
