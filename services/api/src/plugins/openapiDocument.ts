import { z } from "zod";
import { routerOptions } from "../router.js";
import { errorBodySchema } from "./errors.js";
import { maxIdempotencyKeyLength, takesIdempotencyKeys } from "./idempotency.js";
import { operationErrors, type AppFacts } from "./operationErrors.js";
import type { CatalogRoute } from "./routeCatalog.js";

type JsonSchema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface Response {
  description: string;
  headers?: Record<string, { description?: string; schema: JsonSchema }>;
  content?: Record<string, { schema?: JsonSchema }>;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: JsonSchema }> };
  responses: Record<string, Response>;
  [key: string]: unknown;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema>; [key: string]: unknown };
  [key: string]: unknown;
}

const errorRef = { $ref: "#/components/schemas/Error" };

/** The headers some error answers carry, which a client needs to act on them. */
const errorHeaders: Record<number, Response["headers"]> = {
  405: { Allow: { description: "The methods the path takes.", schema: { type: "string" } } },
  429: { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 1 } } },
};

/**
 * What the routes' own schemas cannot say, added to the document fastify-swagger generated from them:
 * every operation's error answers (from `operationErrors`) with the one `Error` schema, the router's
 * limit on path parameters, the `Idempotency-Key` header where it is honoured, and whether a body is
 * needed at all. Reads the route catalog, so a route added later is described the same way.
 */
export function completeDocument(document: OpenApiDocument, facts: AppFacts): OpenApiDocument {
  const { $schema: _, ...errorSchema } = z.toJSONSchema(errorBodySchema, { target: "draft-2020-12" });
  const paths: OpenApiDocument["paths"] = {};
  for (const [path, operations] of Object.entries(document.paths)) {
    const completed: Record<string, Operation> = {};
    for (const [method, operation] of Object.entries(operations)) {
      const route = facts.catalog.find((r) => r.method === method.toUpperCase() && documentPath(r.url) === path);
      completed[method] = route ? completeOperation(operation, route, facts) : operation;
    }
    paths[path.replaceAll("{*}", `{${wildcardName}}`)] = completed;
  }
  return {
    ...document,
    paths,
    components: { ...document.components, schemas: { ...document.components?.schemas, Error: errorSchema } },
  };
}

/**
 * A wildcard's parameter is named `*` in fastify; `{*}` is no valid path template for a generated client.
 * The only wildcards carry a signed token (the tracked links and pixel).
 */
const wildcardName = "token";

/** `/emails/:id` as fastify-swagger writes it: `/emails/{id}`. */
function documentPath(url: string): string {
  return url.replace(/:(\w+)/g, "{$1}").replace(/\*/g, "{*}");
}

/** What fastify-swagger calls "Default Response" when the schema gives no description. */
const successes: Record<string, string> = { "200": "Done.", "201": "Created.", "202": "Accepted: it happens next." };

function completeOperation(operation: Operation, route: CatalogRoute, facts: AppFacts): Operation {
  const responses = Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => [
      status,
      response.description === "Default Response" && successes[status] ? { ...response, description: successes[status] } : response,
    ]),
  );
  for (const [status, headers] of declaredHeaders(route))
    responses[status] = { ...responses[status]!, headers: { ...responses[status]?.headers, ...headers } };
  for (const [status, failures] of operationErrors(route, facts)) {
    const existing = responses[status];
    const reasons = failures.reasons.join(" ");
    responses[status] = {
      ...existing,
      description: existing ? `${existing.description} ${reasons}` : reasons,
      ...(errorHeaders[status] ? { headers: { ...existing?.headers, ...errorHeaders[status] } } : {}),
      content: { ...existing?.content, "application/json": existing?.content?.["application/json"] ?? { schema: errorRef } },
    };
  }
  const parameters = (operation.parameters ?? []).map((p) => (p.in === "path" ? limitPathParameter(p) : p));
  if (facts.guarded && takesIdempotencyKeys({ method: route.method as "POST", config: route.config ?? {}, schema: route.schema ?? {} })) {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "Makes a retry safe: a repeat with the same key and body within 24 hours gets the first answer again.",
      schema: { type: "string", minLength: 1, maxLength: maxIdempotencyKeyLength },
    });
  }
  // Only a JSON body is ever optional. The streamed import's schema takes a missing body because its parts
  // never reach `request.body`, and the preferences form's so that an empty post gets the page's answer.
  const json = operation.requestBody?.content["application/json"];
  const requestBody = operation.requestBody && { ...operation.requestBody, required: !(json && acceptsNoBody(route.schema?.body)) };
  return { ...operation, ...(parameters.length > 0 ? { parameters } : {}), ...(requestBody ? { requestBody } : {}), responses };
}

/**
 * What the router holds every path parameter to: an empty one matches no route (404), and a longer one
 * than its limit is answered 400 before the route runs. The wildcard is not held to the router's limit;
 * its own schema says how long it may be. `.` and `..` never arrive as themselves: clients resolve them
 * as the URL's dot segments, and the request reaches another path.
 */
function limitPathParameter(parameter: Parameter): Parameter {
  const schema = parameter.schema ?? {};
  const name = parameter.name === "*" ? wildcardName : parameter.name;
  if (schema.type !== "string") return { ...parameter, name };
  const maxLength = parameter.name === "*" ? schema.maxLength : (schema.maxLength ?? routerOptions.maxParamLength);
  const limits = {
    minLength: Math.max(1, Number(schema.minLength ?? 0)),
    ...(maxLength === undefined ? {} : { maxLength }),
    not: { enum: [".", ".."] },
  };
  return { ...parameter, name, schema: { ...schema, ...limits } };
}

/** A body schema that takes `undefined` (the SDK's empty POST) does not need a body. */
function acceptsNoBody(schema: unknown): boolean {
  return schema instanceof z.ZodType && schema.safeParse(undefined).success;
}

/**
 * The headers a route's response schema names (`headers: { location: z.string() }` beside `content`):
 * fastify-type-provider-zod's transform keeps only a response's description and content.
 */
function declaredHeaders(route: CatalogRoute): [string, NonNullable<Response["headers"]>][] {
  const responses = (route.schema?.response ?? {}) as Record<string, { headers?: Record<string, unknown> }>;
  return Object.entries(responses).flatMap(([status, response]) => {
    const headers = Object.entries(response?.headers ?? {}).filter((entry): entry is [string, z.ZodType] => entry[1] instanceof z.ZodType);
    if (headers.length === 0) return [];
    return [[status, Object.fromEntries(headers.map(([name, schema]) => [name, headerOf(schema)]))]];
  });
}

function headerOf(schema: z.ZodType): { description?: string; schema: JsonSchema } {
  const { $schema: _, description, ...json } = z.toJSONSchema(schema, { target: "draft-2020-12" });
  return { ...(typeof description === "string" ? { description } : {}), schema: json };
}
