import type { FastifyInstance } from "fastify";
import { createSealer } from "@tidings/core";
import { migrate } from "@tidings/postgres";
import { apiMigrations } from "../apiMigrations.js";
import type { ApiServices } from "../services.js";
import { installIdempotency } from "./idempotency.js";
import { installRateLimit } from "./rateLimit.js";
import { rateBucketsFor } from "./rateLimitBuckets.js";
import { installRequestLogs } from "./requestLogs.js";
import { teamRateLimits } from "./teamRateLimits.js";

/**
 * What applies to every authenticated request, installed right after auth: the rate limit (first, so an
 * over-limit request costs the least), the stored request log, and `Idempotency-Key` on the routes that
 * create. The rate limit's buckets are the process's (`rateBucketsFor`), shared with SMTP submission.
 */
export function installRequestPolicies(app: FastifyInstance, services: ApiServices): void {
  const { database, config } = services;
  app.addHook("onReady", async () => {
    await migrate(database, "api", apiMigrations);
  });
  installRateLimit(app, {
    buckets: rateBucketsFor(database),
    limitOf: teamRateLimits(database),
  });
  installRequestLogs(app, { database, logger: app.log, retentionDays: config.LOG_RETENTION_DAYS });
  // Server mode requires TIDINGS_SECRET. Embedded mode keeps its generated secret in DATA_DIR beside the
  // PGlite files, so sealing there would protect nothing from whoever can read the database.
  const secret = config.TIDINGS_SECRET;
  installIdempotency(app, { database, ...(secret ? { sealer: createSealer(secret, "idempotent-answers") } : {}) });
}
