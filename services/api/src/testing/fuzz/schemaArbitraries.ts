import fc from "fast-check";
import type { JsonSchema } from "../jsonSchema.js";

/** Resolves a `$ref` of the document (`#/components/schemas/…`). */
export type RefResolver = (ref: string) => JsonSchema;

/** Generated text stays short: a long value is the hostile corpus's job, which sends each limit exactly. */
const longestText = 40;
const longestList = 3;

/**
 * Hosts that never resolve (RFC 2606 `.invalid`): a generated attachment `path` or webhook endpoint must
 * not make the api fetch from the network.
 */
const unreachableUrl = fc
  .tuple(fc.constantFrom("http", "https"), fc.stringMatching(/^[a-z][a-z0-9]{0,12}$/), fc.webPath())
  .map(([scheme, host, path]) => `${scheme}://${host}.invalid${path}`);

const formats: Record<string, fc.Arbitrary<string>> = {
  uuid: fc.uuid({ version: [4, 7] }),
  email: fc.emailAddress(),
  uri: unreachableUrl,
  "date-time": fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString()),
  hostname: fc.domain(),
  "idn-hostname": fc.domain(),
};

/**
 * Values a schema describes: the generated document's request schemas turned into fast-check
 * arbitraries, so every operation gets requests of its own shape without code of its own. Values keep
 * the schema's types, formats, enums, lengths and required keys; they need not make sense together
 * (an id nobody has), which is what a route must answer well too.
 */
export function valuesOf(schema: JsonSchema, resolve: RefResolver, depth = 0): fc.Arbitrary<unknown> {
  const excluded = schema.not?.enum;
  if (excluded) return valuesOf(withoutKey(schema, "not"), resolve, depth).filter((value) => !excluded.includes(value));
  if (schema.$ref) return valuesOf({ ...resolve(schema.$ref), ...withoutKey(schema, "$ref") }, resolve, depth);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    // An object whose alternatives only add required keys (`POST /emails`: a template, or a subject and a body).
    const base = withoutKey(withoutKey(schema, "anyOf"), "oneOf");
    return fc.oneof(...alternatives.map((alternative) => valuesOf(merge(base, alternative), resolve, depth)));
  }
  if (schema.allOf?.length) return valuesOf(schema.allOf.reduce(merge, withoutKey(schema, "allOf")), resolve, depth);
  const types = schema.type === undefined ? [] : [schema.type].flat();
  if (types.length > 1) return fc.oneof(...types.map((type) => valuesOf({ ...schema, type }, resolve, depth)));
  switch (types[0]) {
    case "string":
      return textOf(schema);
    case "integer":
      return fc.integer({
        min: bound(schema.minimum, schema.exclusiveMinimum, 1, -1e9),
        max: bound(schema.maximum, schema.exclusiveMaximum, -1, 1e9),
      });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(valuesOf(schema.items ?? {}, resolve, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? longestList, longestList)),
      });
    case "object":
      return objectsOf(schema, resolve, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function textOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? longestText, longestText));
  const formatted = schema.format ? formats[schema.format] : undefined;
  if (formatted) return formatted;
  if (schema.contentEncoding === "base64") return fc.base64String({ maxLength: longestText });
  if (schema.pattern)
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength, maxLength }) },
  );
}

function objectsOf(schema: JsonSchema, resolve: RefResolver, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const known = fc.record(
    Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, valuesOf(value, resolve, depth + 1)])),
    { requiredKeys: required.filter((key) => key in properties) },
  );
  const extra = schema.additionalProperties;
  if (!extra || typeof extra !== "object" || depth > 3) return known;
  const keys = schema.propertyNames
    ? valuesOf(schema.propertyNames, resolve, depth + 1).map(String)
    : fc.string({ minLength: 1, maxLength: 12 });
  return fc
    .tuple(known, fc.dictionary(keys, valuesOf(extra, resolve, depth + 1), { maxKeys: 3 }))
    .map(([fields, more]) => ({ ...more, ...fields }));
}

/**
 * Values a schema does not describe, or only nearly: anything JSON, or a value of the schema with one
 * key dropped, replaced by anything, or added. They find the handler that trusts a shape its schema
 * never promised.
 */
export function nearValuesOf(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const anything = fc.jsonValue({ maxDepth: 3 });
  const edited = fc.tuple(valid, fc.nat(), anything, fc.constantFrom("drop", "replace", "add")).map(([value, index, other, edit]) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return other;
    const copy: Record<string, unknown> = { ...value };
    const keys = Object.keys(copy);
    const key = keys[index % Math.max(keys.length, 1)];
    if (edit === "add" || key === undefined) copy[`x${index % 7}`] = other;
    else if (edit === "drop") delete copy[key];
    else copy[key] = other;
    return copy;
  });
  return fc.oneof({ weight: 1, arbitrary: anything }, { weight: 3, arbitrary: edited });
}

function merge(a: JsonSchema, b: JsonSchema): JsonSchema {
  return {
    ...a,
    ...withoutKey(b, "not"),
    properties: { ...a.properties, ...b.properties },
    required: [...new Set([...(a.required ?? []), ...(b.required ?? [])])],
  };
}

function withoutKey<T extends object>(value: T, key: keyof T): T {
  const { [key]: _, ...rest } = value;
  return rest as T;
}

function bound(inclusive: number | undefined, exclusive: number | undefined, step: number, fallback: number): number {
  const limit = inclusive ?? (exclusive === undefined ? fallback : exclusive + step);
  return Math.max(Math.min(limit, Number.MAX_SAFE_INTEGER), Number.MIN_SAFE_INTEGER);
}
