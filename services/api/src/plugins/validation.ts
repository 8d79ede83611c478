import type { FastifySchemaCompiler } from "fastify";
import { TidingsError } from "@tidings/core";
import { safeParse, type $ZodRawIssue, type $ZodType } from "zod/v4/core";

type HttpPart = "body" | "querystring" | "params" | "headers";

/**
 * Validates every request part with its zod schema (zod is the only validator) and fails with a
 * `TidingsError` whose message names the offending field in backticks, as the contract's messages do
 * ("Missing `email` field.", docs/wire-compatibility.md §3.1). Only the first problem is reported, like the
 * reference API. Messages a schema author wrote (`.min(1, "…")`, refinements) are kept.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<$ZodType> = ({ schema, httpPart }) => {
  const part = (httpPart ?? "body") as HttpPart;
  const error = (issue: $ZodRawIssue) => describeIssue(issue, part);
  return (data) => {
    const result = safeParse(schema, data, { error });
    if (result.success) return { value: result.data };
    const issue = result.error.issues[0]!;
    const missing =
      ["invalid_type", "invalid_value", "invalid_union"].includes(issue.code) && isAbsent(valueAt(data, issue.path), issue.path);
    const code = !missing ? "validation_error" : part === "body" ? "missing_required_field" : "missing_required_parameter";
    const named = issue.message.includes("`") || issue.path.length === 0;
    return { error: new TidingsError(code, named ? issue.message : `\`${fieldName(issue.path)}\`: ${issue.message}`) };
  };
};

const nouns: Record<HttpPart, string> = { body: "field", querystring: "parameter", params: "parameter", headers: "header" };
const wholes: Record<HttpPart, string> = {
  body: "The request body",
  querystring: "The query string",
  params: "The path",
  headers: "The headers",
};

const expectations: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  bigint: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  record: "an object",
  null: "null",
  date: "a date",
};

const formats: Record<string, string> = {
  email: "a valid email address",
  uuid: "a valid UUID",
  guid: "a valid UUID",
  url: "a valid URL",
  datetime: "an ISO 8601 date and time",
  date: "a date (YYYY-MM-DD)",
  time: "a time (HH:MM:SS)",
  base64: "base64 text",
  hostname: "a valid hostname",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
};

/** Returns undefined to keep zod's own wording for issue kinds we have no better sentence for. */
function describeIssue(issue: $ZodRawIssue, part: HttpPart): string | undefined {
  const path = issue.path ?? [];
  const noun = nouns[part];
  const field = path.length > 0 ? `\`${fieldName(path)}\`` : wholes[part];
  const plural = (n: number | bigint, word: string) => `${n} ${word}${Number(n) === 1 ? "" : "s"}`;
  switch (issue.code) {
    case "invalid_type":
      if (isAbsent(issue.input, path)) return path.length > 0 ? `Missing ${field} ${noun}.` : `${field} is missing.`;
      return `${field} must be ${expectations[issue.expected] ?? `of type ${issue.expected}`}.`;
    case "too_small": {
      const min = issue.minimum;
      if (issue.origin === "string")
        return Number(min) === 1 ? `${field} must not be empty.` : `${field} must be at least ${plural(min, "character")} long.`;
      if (issue.origin === "array" || issue.origin === "set") return `${field} must contain at least ${plural(min, "item")}.`;
      if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
        return `${field} must be ${issue.inclusive ? "greater than or equal to" : "greater than"} ${min}.`;
      return undefined;
    }
    case "too_big": {
      const max = issue.maximum;
      if (issue.origin === "string") return `${field} must be at most ${plural(max, "character")} long.`;
      if (issue.origin === "array" || issue.origin === "set") return `${field} must contain at most ${plural(max, "item")}.`;
      if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
        return `${field} must be ${issue.inclusive ? "less than or equal to" : "less than"} ${max}.`;
      return undefined;
    }
    case "invalid_format":
      if (issue.format === "regex") return `${field} has an invalid format.`;
      return `${field} must be ${formats[issue.format] ?? `a valid ${issue.format}`}.`;
    case "invalid_value":
      // An enum (or, below, a union) field left out is missing, like any other required field.
      if (isAbsent(issue.input, path)) return path.length > 0 ? `Missing ${field} ${noun}.` : `${field} is missing.`;
      return issue.values.length === 1
        ? `${field} must be \`${String(issue.values[0])}\`.`
        : `${field} must be one of ${issue.values.map((v) => `\`${String(v)}\``).join(", ")}.`;
    case "unrecognized_keys":
      return `Unknown ${issue.keys.length === 1 ? noun : `${noun}s`} ${issue.keys.map((k) => `\`${k}\``).join(", ")}${path.length > 0 ? ` in ${field}` : ""}.`;
    case "not_multiple_of":
      return `${field} must be a multiple of ${issue.divisor}.`;
    case "invalid_union":
      if (isAbsent(issue.input, path)) return path.length > 0 ? `Missing ${field} ${noun}.` : `${field} is missing.`;
      return `${field} does not match any accepted form.`;
    default:
      return `${field} is invalid.`;
  }
}

/** `attachments[0].filename`: the path as a client would write it to reach the value. */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join("");
}

/** Fastify hands a body-less request's body over as null, so at the root null means "no body". */
function isAbsent(value: unknown, path: readonly PropertyKey[]): boolean {
  return value === undefined || (value === null && path.length === 0);
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
