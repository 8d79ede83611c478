import type { FastifyInstance, FastifyRequest, FastifySchema } from "fastify";
import { TidingsError } from "@tidings/core";
import type { ApiKeyPermission } from "@tidings/domain";
import { migrate } from "@tidings/postgres";
import { hashApiKeyToken } from "../apiKeyTokens.js";
import type { ApiServices } from "../services.js";
import { ApiKeyLookup, type ApiKeyPrincipal } from "./apiKeyLookup.js";
import { API_KEY_USAGE_COMPONENT, ApiKeyUsage, apiKeyUsageMigrations } from "./apiKeyUsage.js";
import { isDocumentationRoute } from "./documentationRoutes.js";

/** Who is calling: set on every request to a route that needs a key, before any other hook reads it. */
export interface RequestAuth {
  teamId: string;
  apiKeyId: string;
  permission: ApiKeyPermission;
  /** The one domain a `sending_access` key may send from, or null for any of the team's domains. */
  domainId: string | null;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Null on the routes that need no key (health, readiness, documentation) and on unknown routes. */
    auth: RequestAuth | null;
  }
}

/**
 * The only routes a `sending_access` key may call (docs/architecture.md §6). `POST /mcp` lists and calls
 * only the sending tools for such a key, and each tool calls its route with that same key.
 */
const sendingRoutes = new Set(["POST /emails", "POST /emails/batch", "POST /mcp"]);

export const isSendingRoute = (method: string, url: string) => sendingRoutes.has(`${method} ${url}`);

export interface AuthOptions {
  services: ApiServices;
  /** See ApiKeyLookupOptions.ttlMs (default 500 ms). */
  lookupTtlMs?: number;
  /** How often `last_used_at` is written (default one minute). */
  usageFlushMs?: number;
}

/** A route answers without a key when its schema says so for the OpenAPI document too: `security: []`. */
export function isPublicRoute(url: string, schema: FastifySchema | undefined): boolean {
  const security = (schema as { security?: unknown } | undefined)?.security;
  return (Array.isArray(security) && security.length === 0) || isDocumentationRoute(url);
}

/**
 * `Authorization: Bearer <token>` on every route but the public ones: 401 `missing_api_key` without a
 * token, 403 `invalid_api_key` for a token of no live key, 401 `restricted_api_key` for a sending key off
 * the sending routes (docs/wire-compatibility.md §3.2's recommended mapping). Runs first among the `onRequest` hooks, so
 * the request log, idempotency and rate limit all see `request.auth`. An unknown route is answered 404 or
 * 405 without a key, as the router decides before any route's hooks.
 */
export function installAuth(app: FastifyInstance, options: AuthOptions): void {
  const { services } = options;
  const lookup = new ApiKeyLookup(
    services.database,
    services.store,
    options.lookupTtlMs === undefined ? {} : { ttlMs: options.lookupTtlMs },
  );
  const usage = new ApiKeyUsage(services.database);
  app.decorateRequest("auth", null);

  const admit = (request: FastifyRequest, url: string, key: ApiKeyPrincipal | undefined): TidingsError | undefined => {
    if (!key) return new TidingsError("invalid_api_key", "API key is invalid.");
    if (key.permission === "sending_access" && !isSendingRoute(request.method, url)) {
      return new TidingsError("restricted_api_key", "This API key is restricted to only send emails.");
    }
    request.auth = { teamId: key.teamId, apiKeyId: key.apiKeyId, permission: key.permission, domainId: key.domainId };
    usage.touch(key.apiKeyId, services.clock.now());
    return undefined;
  };
  // Written with a callback, as the rate limit is: a key looked up a moment ago is answered from memory,
  // and the request goes on without waiting for a promise.
  app.addHook("onRequest", (request, _reply, done) => {
    const { url, schema } = request.routeOptions;
    if (url === undefined || isPublicRoute(url, schema)) return done();
    const token = bearerToken(request.headers.authorization);
    if (!token) {
      return done(
        new TidingsError(
          "missing_api_key",
          "Missing API key in the authorization header. Include the header `Authorization: Bearer YOUR_API_KEY`.",
        ),
      );
    }
    const key = lookup.findNow(hashApiKeyToken(token));
    if (key instanceof Promise) key.then((found) => done(admit(request, url, found)), done);
    else done(admit(request, url, key));
  });

  const flushEveryMs = options.usageFlushMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    flushing = flushing.then(() => usage.flush().catch((error: unknown) => app.log.error({ err: error }, "writing last_used_at failed")));
    return flushing;
  };
  app.addHook("onReady", async () => {
    await migrate(services.database, API_KEY_USAGE_COMPONENT, apiKeyUsageMigrations);
    timer = setInterval(() => void flush(), flushEveryMs).unref();
  });
  app.addHook("onClose", async () => {
    clearInterval(timer);
    await flush();
  });
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

/** The caller of a route that needs a key. Throws on a public route: asking there is a bug. */
export function requireAuth(request: FastifyRequest): RequestAuth {
  if (!request.auth) throw new Error(`${request.method} ${request.url}: no authenticated caller on this route`);
  return request.auth;
}
