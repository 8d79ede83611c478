import { errorTable, type WireErrorName } from "../errorTable.js";
import { routerOptions } from "../router.js";
import { isPublicRoute, isSendingRoute } from "./auth.js";
import { takesIdempotencyKeys } from "./idempotency.js";
import { maxJsonDepth } from "./jsonBody.js";
import type { CatalogRoute } from "./routeCatalog.js";

declare module "fastify" {
  interface FastifySchema {
    /**
     * The failures a route has beyond those every route of its kind has (see `causes` below), for the
     * OpenAPI document: codes of errorTable, each with when it happens. Nothing else reads it.
     */
    errors?: Readonly<Record<string, string>>;
  }
}

/** What a route is, as far as the ways it can fail go. */
interface RouteFacts {
  route: CatalogRoute;
  guarded: boolean;
  pathParameters: boolean;
  takesBody: boolean;
  validated: boolean;
  idempotent: boolean;
  /** The fixed paths this route's path template also matches, served for other methods only. */
  fixedSiblings: string[];
  bodyLimit: number;
}

/** Fastify reads a body for these methods only; a GET's body is ignored. */
const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

type Cause = (facts: RouteFacts) => Record<string, string> | undefined;

/**
 * Where failures come from, and the errorTable codes each source raises, with when. A route has the
 * failures of every cause that applies to it, and those its schema declares (`errors`). A cause is a
 * plugin or a property every route of a kind shares, so a route added later is described without
 * editing this list; a new source of failure adds its cause here.
 */
const causes: Cause[] = [
  () => ({
    application_error: "An unexpected failure; the `x-request-id` header of the answer names it in the server's log.",
    validation_error: "A path, query or body value holds a NUL character or an unpaired UTF-16 surrogate, which cannot be stored.",
    // Answered on the connection by Node's HTTP parser, before any route is chosen: any operation can get them.
    request_timeout: "The request took too long to arrive.",
    headers_too_large: "The request headers are too large.",
  }),
  (f) =>
    f.validated
      ? {
          validation_error: "A value breaks this operation's schema; the message names it.",
          ...(f.route.schema?.body ? { missing_required_field: "A required body field is missing." } : {}),
          ...(f.route.schema?.querystring || f.route.schema?.params || f.route.schema?.headers
            ? { missing_required_parameter: "A required parameter is missing." }
            : {}),
        }
      : undefined,
  (f) =>
    f.pathParameters
      ? {
          malformed_request: `The path is not valid URL encoding, or a path parameter is longer than ${routerOptions.maxParamLength} characters.`,
        }
      : undefined,
  (f) =>
    f.takesBody
      ? {
          invalid_json: `The body is not valid JSON or not valid UTF-8, nests deeper than ${maxJsonDepth} levels, or has a \`__proto__\` or \`constructor.prototype\` key.`,
          body_too_large: `The body is larger than ${f.bodyLimit} bytes.`,
          unsupported_media_type: "The body's `Content-Type` is not one this operation takes.",
        }
      : undefined,
  (f) =>
    f.guarded
      ? {
          missing_api_key: "No `Authorization: Bearer` header.",
          ...(isSendingRoute(f.route.method, f.route.url) ? {} : { restricted_api_key: "The API key may only send emails." }),
          invalid_api_key: "The API key does not exist or was deleted.",
          rate_limit_exceeded: "The team's requests per second are used up; retry after the `retry-after` seconds.",
          service_unavailable: "The read models are not created yet (a new install whose projector has not started).",
        }
      : undefined,
  (f) => (f.guarded && f.pathParameters ? { not_found: "Your team has nothing with this id." } : undefined),
  (f) =>
    f.idempotent
      ? {
          invalid_idempotency_key: "The `Idempotency-Key` header is empty or too long.",
          invalid_idempotent_request: "The `Idempotency-Key` was used before with another body.",
          concurrent_idempotent_requests: "A request with the same `Idempotency-Key` is still running.",
        }
      : undefined,
  (f) =>
    f.fixedSiblings.length > 0
      ? {
          method_not_allowed: `The path is ${f.fixedSiblings.map((p) => `\`${p}\``).join(" or ")}, which does not take this method; the \`Allow\` header names the methods it takes.`,
        }
      : undefined,
  (f) => f.route.schema?.errors,
];

/** What the whole app is, as far as its routes' failures go. */
export interface AppFacts {
  catalog: readonly CatalogRoute[];
  /** Whether the app checks keys and applies the request policies (the real API; not the bare transport app). */
  guarded: boolean;
  defaultBodyLimit: number;
}

export interface StatusFailures {
  names: WireErrorName[];
  reasons: string[];
}

/**
 * The error answers an operation can give, by HTTP status: the wire names and when each happens. Each
 * code's status and name come from errorTable, so the document cannot disagree with the error handler.
 */
export function operationErrors(route: CatalogRoute, app: AppFacts): Map<number, StatusFailures> {
  const schema = route.schema ?? {};
  const facts: RouteFacts = {
    route,
    guarded: app.guarded && !isPublicRoute(route.url, route.schema),
    pathParameters: /[:*]/.test(route.url),
    takesBody: bodyMethods.has(route.method),
    validated: Boolean(schema.body || schema.querystring || schema.params || schema.headers),
    idempotent: app.guarded && takesIdempotencyKeys({ method: route.method as "POST", config: route.config ?? {}, schema }),
    fixedSiblings: fixedSiblings(route, app.catalog),
    bodyLimit: route.bodyLimit ?? app.defaultBodyLimit,
  };
  const byStatus = new Map<number, StatusFailures>();
  for (const cause of causes) {
    for (const [code, reason] of Object.entries(cause(facts) ?? {})) {
      const wire = errorTable[code];
      if (!wire) throw new Error(`${route.method} ${route.url}: error code \`${code}\` has no row in errorTable`);
      const entry = byStatus.get(wire.statusCode) ?? { names: [], reasons: [] };
      if (!entry.names.includes(wire.name)) entry.names.push(wire.name);
      entry.reasons.push(`${reason} (\`${wire.name}\`)`);
      byStatus.set(wire.statusCode, entry);
    }
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/**
 * `GET /emails/{id}` also matches `/emails/batch`, a path of its own that only takes POST: asked with GET
 * it answers 405, which the operation must list. Found from the catalog, so a fixed path added later is
 * accounted for.
 */
function fixedSiblings(route: CatalogRoute, catalog: readonly CatalogRoute[]): string[] {
  const segments = route.url.split("/");
  if (!segments.some((s) => s.startsWith(":"))) return [];
  const served = (url: string) => catalog.some((r) => r.method === route.method && r.url === url);
  const siblings = new Set<string>();
  for (const other of catalog) {
    const otherSegments = other.url.split("/");
    if (other.url === route.url || otherSegments.length !== segments.length || /[:*]/.test(other.url)) continue;
    if (segments.every((s, i) => s.startsWith(":") || s === otherSegments[i]) && !served(other.url)) siblings.add(other.url);
  }
  return [...siblings];
}
