import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from "fastify";
import { serializerCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { tracingEnabled, type Logger, type Metrics } from "@tidings/core";
import { refuseUnstorableText } from "./plugins/storableText.js";
import { acceptJsonBodies } from "./plugins/jsonBody.js";
import { clientErrorHandler, frameworkErrors, installErrorHandling } from "./plugins/errors.js";
import { echoRequestId, requestId } from "./plugins/requestId.js";
import { catalogRoutes } from "./plugins/routeCatalog.js";
import { installNotFound } from "./plugins/notFound.js";
import { registerOpenApi } from "./plugins/openapi.js";
import { requireJsonReplies } from "./plugins/jsonReplies.js";
import { RequestLog } from "./plugins/requestLog.js";
import { requestChildLogger } from "./plugins/requestLogger.js";
import { recordRequestMetrics } from "./plugins/requestMetrics.js";
import { traceRequests } from "./plugins/requestSpans.js";
import { zodValidatorCompiler } from "./plugins/validation.js";
import { installAuth, type AuthOptions } from "./plugins/auth.js";
import { dashboardRoutes } from "./dashboard/dashboardRoutes.js";
import type { DeadLetterDeps } from "./handlers/deadLetters.js";
import { deadLetterRoutes } from "./routes/deadLetters.js";
import { installRequestPolicies } from "./plugins/requestPolicies.js";
import { routerOptions } from "./router.js";
import type { ReadinessChecks } from "./routes/health.js";
import { operationRoutes, resourceRoutes } from "./routes/index.js";
import type { ApiServices } from "./services.js";

/** The fastify instance every route file receives: zod schemas type its requests and replies. */
export type ApiInstance = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * A resource's routes (`routes/<resource>.ts`): they declare zod schemas, call a handler or query, and
 * reply. Each set is registered in its own encapsulated scope, after the cross-cutting plugins, so it
 * can add its own hooks or content parsers (multipart imports) without touching the others.
 */
export type ApiRoutes = (app: ApiInstance) => void | Promise<void>;

export interface ApiDeps {
  logger: Logger;
  /** Stores, read-your-writes, clock and settings, shared by every route. */
  services: ApiServices;
  /** Tuning of the auth plugin, for tests (a short `last_used_at` flush interval). */
  auth?: Omit<AuthOptions, "services">;
  /** Checks `/ready` runs: event store, read database, bus. */
  readiness: ReadinessChecks;
  /** Routes served beside the API's own (`routes/index.ts`): for embedders and tests. */
  routes?: readonly ApiRoutes[];
  /** Bound on each readiness check. */
  readinessTimeoutMs?: number;
  /** Default request body limit; a route raises its own with the route option `bodyLimit`. */
  bodyLimit?: number;
  /** Whom to believe about a client's address (TRUST_PROXY; default: the services' setting, else nobody). */
  trustProxy?: boolean | number | string[];
  /** Where requests are counted and timed (METRICS_PORT); unset or off: nowhere. */
  metrics?: Metrics;
  /** The bus and the sagas' consumers, for `/admin/dead-letters`; unset, the routes are not served. */
  deadLetters?: Pick<DeadLetterDeps, "bus" | "durables">;
}

/** What the HTTP layer alone needs (`buildTransportApp`). */
export type TransportDeps = Omit<ApiDeps, "services" | "auth" | "deadLetters">;

/** 1 MiB: enough for any JSON body but sends with attachments and imports, which set their own. */
export const defaultBodyLimit = 1024 * 1024;

/**
 * The HTTP app, not yet listening: callers `listen` it, tests `inject` into it. Everything that makes the
 * wire contract hold for every route lives here, so route files stay thin.
 */
export function buildApp(deps: ApiDeps): ApiInstance {
  return createApp(deps, deps.services);
}

/**
 * The HTTP layer without auth and without the resources: for tests of the wire behaviour every route
 * shares (errors, bodies, routing), with routes of their own that need no key and no storage.
 */
export function buildTransportApp(deps: TransportDeps): ApiInstance {
  return createApp(deps, undefined);
}

/** A number of hops trusts that many proxies nearest the server (fastify types only the function form of it). */
const trustedProxies = (setting: boolean | number | string[]) =>
  typeof setting === "number" ? (_address: string, hop: number) => hop < setting : setting;

function createApp(deps: TransportDeps & Pick<ApiDeps, "auth" | "deadLetters">, services: ApiServices | undefined): ApiInstance {
  const app = Fastify({
    loggerInstance: deps.logger,
    logController: new RequestLog(),
    childLoggerFactory: requestChildLogger,
    genReqId: requestId,
    // Behind a proxy every client has the proxy's address, which tracking would record as the opener's.
    trustProxy: trustedProxies(deps.trustProxy ?? services?.config.TRUST_PROXY ?? false),
    requestIdHeader: false,
    bodyLimit: deps.bodyLimit ?? defaultBodyLimit,
    routerOptions,
    // Requests arriving on kept-alive connections during a drain are answered (with `Connection: close`)
    // instead of getting fastify's 503, whose body is not in the contract's shape.
    return503OnClosing: false,
    frameworkErrors,
    clientErrorHandler,
    // Fastify fails a start whose plugins take over 10 s. In embedded mode the api starts beside a projector
    // catching up on the same PGlite, which holds the event loop: on a loaded machine the docs plugin took
    // longer, and the process exited. A plugin that never finishes is a defect the tests meet at once.
    pluginTimeout: 120_000,
  }).withTypeProvider<ZodTypeProvider>() as unknown as ApiInstance;

  if (deps.metrics?.enabled) recordRequestMetrics(app, deps.metrics);
  if (tracingEnabled()) traceRequests(app);
  installWireContract(app);
  // Unstorable text is refused apart from the wire contract: the plugin tests' stand-in app lets it through to them.
  refuseUnstorableText(app);
  registerOpenApi(app, { guarded: services !== undefined });
  if (services) {
    installAuth(app, { ...deps.auth, services });
    installRequestPolicies(app, services);
  }
  // The dashboard calls the resources' routes in-process (dashboard/apiCalls.ts), so it is served wherever they are.
  const resources = services ? [...resourceRoutes(services), dashboardRoutes({ publicUrl: services.config.PUBLIC_URL })] : [];
  if (services && deps.deadLetters) resources.push(deadLetterRoutes(services, deps.deadLetters));
  registerRoutes(app, [...operationRoutes(deps), ...resources, ...(deps.routes ?? [])]);
  return app;
}

/** What every route's requests and replies go through (errors, JSON bodies, 404/405, request ids), in its order. */
export function installWireContract(app: ApiInstance): void {
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  catalogRoutes(app);
  installErrorHandling(app);
  installNotFound(app);
  acceptJsonBodies(app);
  echoRequestId(app);
  requireJsonReplies(app);
}

/** Each set of routes in its own encapsulated scope, after the plugins (`ApiRoutes`). */
export function registerRoutes(app: ApiInstance, routes: readonly ApiRoutes[]): void {
  for (const register of routes) {
    app.register(async (scope) => {
      await register(scope.withTypeProvider<ZodTypeProvider>());
    });
  }
}
