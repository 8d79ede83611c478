import Fastify, { type FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { installWireContract, registerRoutes, type ApiInstance, type ApiRoutes } from "../app.js";
import { requestId } from "../plugins/requestId.js";

/** The header a test names its team with; the stand-in auth takes it as the caller's team. */
export const teamHeader = "x-test-team";
export const apiKeyHeader = "x-test-api-key";

/**
 * A real `onRequest` hook that does what the auth plugin does for the plugins after it: it sets
 * `request.auth`. It trusts a test header instead of looking a token up, so that tests of the plugins
 * behind auth (rate limit, idempotency, request logs) need no teams or keys. Without the header the
 * request is unauthenticated, as on /health.
 */
export function standInAuth(app: FastifyInstance): void {
  app.decorateRequest("auth", null);
  app.addHook("onRequest", (request, _reply, done) => {
    const teamId = request.headers[teamHeader];
    if (typeof teamId === "string") {
      const apiKeyId = request.headers[apiKeyHeader];
      request.auth = { teamId, apiKeyId: typeof apiKeyId === "string" ? apiKeyId : teamId, permission: "full_access", domainId: null };
    }
    done();
  });
}

/**
 * An app with the foundation's wire behaviour (`installWireContract`), the stand-in auth, then
 * the plugins under test (`install`), then `routes`: the order `buildApp` uses.
 */
export function buildStandInApp(install: (app: FastifyInstance) => void, routes: readonly ApiRoutes[]): ApiInstance {
  const app = Fastify({
    genReqId: requestId,
    requestIdHeader: false,
    logger: false,
  }).withTypeProvider<ZodTypeProvider>() as unknown as ApiInstance;
  installWireContract(app);
  standInAuth(app);
  install(app);
  registerRoutes(app, routes);
  return app;
}
