import { z } from "zod";
import type { FastifyInstance } from "fastify";
import { isDocumentationRoute } from "../plugins/documentationRoutes.js";
import type { CatalogRoute } from "../plugins/routeCatalog.js";

/**
 * Checks that hold for every route the app serves, whatever resource it belongs to. They read the
 * app's route catalog, so a route added later is checked without editing any test.
 */

const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const sampleId = "00000000-0000-4000-8000-000000000000";

function apiRoutesOf(app: FastifyInstance): CatalogRoute[] {
  return app.routeCatalog.filter((route) => route.method !== "HEAD" && !isDocumentationRoute(route.url));
}

/** Routes with no response schema for a 2xx (or, for a redirect, 3xx) status: they would be missing from the OpenAPI document. */
export function routesWithoutSchema(app: FastifyInstance): string[] {
  return apiRoutesOf(app)
    .filter((route) => !Object.keys((route.schema?.response as object | undefined) ?? {}).some((status) => /^[23]/.test(status)))
    .map((route) => `${route.method} ${route.url}`);
}

export interface ProbeFailure {
  route: string;
  sent: string;
  status: number;
  body: string;
  reason: string;
}

/**
 * Sends every route malformed JSON, bodies of the wrong shape, and fields of the wrong type (taken from
 * the route's own zod schema), and reports each answer that is a 5xx or not in the contract's error shape.
 * `headers` lets a caller authenticate, so that the checks behind authentication are reached.
 */
export async function probeMalformedRequests(
  app: FastifyInstance,
  options: { headers?: Record<string, string> } = {},
): Promise<ProbeFailure[]> {
  const failures: ProbeFailure[] = [];
  for (const route of apiRoutesOf(app)) {
    const url = route.url.replace(/:\w+(\([^)]*\))?/g, sampleId).replace(/\*/g, "x");
    const probes: Array<{ sent: string; payload?: string; query?: string; path?: string; mustFail: boolean }> = [];
    if (bodyMethods.has(route.method)) {
      probes.push({ sent: "malformed JSON", payload: '{"to": ', mustFail: true });
      probes.push({ sent: "text that is not JSON", payload: "to=a&subject=b", mustFail: true });
      for (const value of ["[]", '"text"', "42", "null", "true", '{"\\u0000": {"deep": [[[[{}]]]]}}']) {
        probes.push({ sent: `the JSON body ${value}`, payload: value, mustFail: false });
      }
      for (const body of wrongTypedBodies(route.schema?.body)) {
        probes.push({ sent: `the JSON body ${body}`, payload: body, mustFail: false });
      }
    }
    for (const query of wrongQueries(route.schema?.querystring)) probes.push({ sent: `the query ?${query}`, query, mustFail: false });
    if (/:\w+/.test(route.url)) {
      for (const [value, mustFail] of [
        ["%00", true],
        ["a%ED%A0%80", false],
        ["x".repeat(300), false],
      ] as const) {
        probes.push({
          sent: `the path parameter ${value.slice(0, 20)}`,
          path: route.url.replace(/:\w+(\([^)]*\))?/g, value).replace(/\*/g, "x"),
          mustFail,
        });
      }
    }

    for (const probe of probes) {
      const res = await app.inject({
        method: route.method as "GET",
        url: probe.query ? `${probe.path ?? url}?${probe.query}` : (probe.path ?? url),
        headers: { ...options.headers, ...(probe.payload !== undefined ? { "content-type": "application/json" } : {}) },
        ...(probe.payload !== undefined ? { payload: probe.payload } : {}),
      });
      const reason = judge(res.statusCode, res.body, probe.mustFail, String(res.headers["content-type"] ?? ""));
      if (reason)
        failures.push({
          route: `${route.method} ${route.url}`,
          sent: probe.sent,
          status: res.statusCode,
          body: res.body.slice(0, 300),
          reason,
        });
    }
  }
  return failures;
}

function judge(status: number, body: string, mustFail: boolean, contentType: string): string | undefined {
  if (status >= 500) return "a server error for bad input";
  if (status < 400) return mustFail ? "accepted input that cannot be valid" : undefined;
  // A page for people (the unsubscribe page) answers bad input with a page of its own, not a client's error body.
  if (contentType.startsWith("text/html")) return undefined;
  if (status >= 400 && !hasErrorShape(body, status)) return "an error body that is not {statusCode, message, name}";
  return undefined;
}

function hasErrorShape(body: string, status: number): boolean {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return (
      Object.keys(parsed).sort().join() === "message,name,statusCode" &&
      parsed.statusCode === status &&
      typeof parsed.message === "string" &&
      typeof parsed.name === "string"
    );
  } catch {
    return false;
  }
}

const wrongValues: unknown[] = [12345, "text", true, {}, [], null, -1, "x".repeat(10_000), "a\u0000b", "\ud800", { "\u0000": 1 }];

/** For an object (or array of objects) schema: every known field set to one wrong kind of value at a time. */
function wrongTypedBodies(schema: unknown): string[] {
  const shapeOf = (s: unknown) => (s instanceof z.ZodObject ? Object.keys(s.shape) : undefined);
  const objectKeys = shapeOf(schema);
  const itemKeys = schema instanceof z.ZodArray ? shapeOf(schema.element) : undefined;
  const keys = objectKeys ?? itemKeys;
  if (!keys) return [];
  return wrongValues.map((value) => {
    const body = Object.fromEntries(keys.map((key) => [key, value]));
    return JSON.stringify(itemKeys ? [body] : body);
  });
}

function wrongQueries(schema: unknown): string[] {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.keys(schema.shape).flatMap((key) => [
    `${key}=`,
    `${key}=a&${key}=b`,
    `${key}=-1`,
    `${key}=%00`,
    `${key}=${"9".repeat(400)}`,
  ]);
}
