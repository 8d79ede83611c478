import { z } from "zod";
import type { CatalogRoute } from "../plugins/routeCatalog.js";
import type { McpTool } from "./mcpTools.js";

/** The API request a tool's arguments make. */
export interface ToolRequest {
  url: string;
  body: unknown;
  idempotencyKey: string | undefined;
}

/** A tool's input schema, and how its arguments become the route's request. */
export interface ToolInput {
  schema: z.ZodObject;
  request(args: Record<string, unknown>): ToolRequest;
}

const idempotencyKey = "idempotency_key";

const shapeOf = (schema: unknown): z.ZodRawShape => (schema instanceof z.ZodObject ? schema.shape : {});

/** A POST route honours `Idempotency-Key` when it says so, or when it creates (answers 201) and does not say otherwise. */
function takesIdempotencyKey(route: CatalogRoute): boolean {
  if (route.method !== "POST" || route.config?.idempotency === false) return false;
  return route.config?.idempotency === true || "201" in ((route.schema?.response as object | undefined) ?? {});
}

/**
 * One flat object of the route's path parameters, query and body fields, each with the route's own schema,
 * so a tool accepts exactly what the route does and its JSON Schema says the same as the OpenAPI document.
 * A body that is not an object (a batch) goes under the tool's `bodyKey`.
 */
export function toolInput(tool: McpTool, route: CatalogRoute): ToolInput {
  const params = shapeOf(route.schema?.params);
  const query = shapeOf(route.schema?.querystring);
  const bodySchema = route.schema?.body;
  const spreadBody = bodySchema instanceof z.ZodObject && tool.bodyKey === undefined;
  if (bodySchema !== undefined && !spreadBody && tool.bodyKey === undefined) throw new Error(`${tool.name}: its body needs a bodyKey`);
  const body: Record<string, z.ZodType> = spreadBody
    ? { ...(bodySchema.shape as Record<string, z.ZodType>) }
    : tool.bodyKey
      ? { [tool.bodyKey]: bodySchema as z.ZodType }
      : {};
  for (const field of tool.requires ?? []) {
    const optional = body[field];
    if (!(optional instanceof z.ZodOptional)) throw new Error(`${tool.name}: ${field} is not an optional body field`);
    body[field] = optional.unwrap() as z.ZodType;
  }
  const keyed = takesIdempotencyKey(route)
    ? {
        [idempotencyKey]: z
          .string()
          .min(1)
          .max(256)
          .optional()
          .describe("Sent as the `Idempotency-Key` header: a retry with the same key and input creates nothing new."),
      }
    : {};
  const schema = z.object({ ...params, ...query, ...body, ...keyed });

  return {
    schema,
    request(args) {
      const path = route.url.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(args[name])));
      const search = new URLSearchParams();
      for (const name of Object.keys(query)) {
        const value = args[name];
        if (value !== undefined) for (const item of [value].flat()) search.append(name, String(item));
      }
      const text = search.toString();
      const bodyArgs = Object.fromEntries(Object.entries(args).filter(([name]) => name in body));
      return {
        url: text ? `${path}?${text}` : path,
        body: tool.bodyKey ? bodyArgs[tool.bodyKey] : bodySchema === undefined ? undefined : bodyArgs,
        idempotencyKey: args[idempotencyKey] as string | undefined,
      };
    },
  };
}
