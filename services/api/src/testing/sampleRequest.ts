import { z } from "zod";
import { newId } from "@tidings/core";
import type { JsonSchema } from "./jsonSchema.js";

const strings: Record<string, () => string> = {
  uuid: newId,
  email: () => "sample@example.com",
  "date-time": () => new Date(Date.now() + 3_600_000).toISOString(),
  date: () => new Date().toISOString().slice(0, 10),
  uri: () => "https://example.com/sample",
  url: () => "https://example.com/sample",
  hostname: () => "example.com",
};

/**
 * A small body a route's own schema accepts: required fields only, each with the plainest value of its
 * type (first enum value, minimum number, a uuid for a uuid). It lets a route-wide test get past a
 * route's validation to what lies behind it, such as the lookup of an id, without knowing the route.
 * Undefined when the route takes no body or its schema is not zod.
 */
export function sampleBody(schema: unknown): unknown {
  if (!(schema instanceof z.ZodType)) return undefined;
  return sampleValue(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema);
}

/** The same for a JSON Schema: the OpenAPI document's, for tests that read the document. */
export function sampleValue(s: JsonSchema): unknown {
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) {
    const chosen = alternatives.find((a) => a.type !== "null") ?? alternatives[0]!;
    if (s.type === undefined) return sampleValue(chosen);
    // An object whose alternatives say which keys it needs (`POST /emails`: a subject and a body, or a template).
    const { anyOf: _any, oneOf: _one, ...base } = s;
    return sampleValue({
      ...base,
      properties: { ...base.properties, ...chosen.properties },
      required: [...(base.required ?? []), ...(chosen.required ?? [])],
    });
  }
  if (s.allOf?.[0]) return sampleValue(s.allOf[0]);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "string": {
      const text = s.format && strings[s.format] ? strings[s.format]!() : "sample";
      const padded = text.padEnd(s.minLength ?? 0, "x");
      return s.maxLength === undefined ? padded : padded.slice(0, s.maxLength);
    }
    case "integer":
    case "number":
      return s.minimum ?? (s.exclusiveMinimum === undefined ? 1 : s.exclusiveMinimum + 1);
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: s.minItems ?? 1 }, () => sampleValue(s.items ?? {}));
    case "object":
      return Object.fromEntries((s.required ?? []).map((key) => [key, sampleValue(s.properties?.[key] ?? {})]));
    case "null":
      return null;
    default:
      return "sample";
  }
}
