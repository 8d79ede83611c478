import { z } from "zod";

export const ruleOperators = ["eq", "neq", "gt", "gte", "lt", "lte", "contains", "starts_with", "ends_with", "exists", "is_empty"] as const;
export type RuleOperator = (typeof ruleOperators)[number];

export type Rule = { type: "rule"; field: string; operator: RuleOperator; value?: unknown } | { type: "and" | "or"; rules: Rule[] };

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** The condition and filter rule of docs/wire-compatibility.md §6.14: a leaf compares one field, `and`/`or` combine rules. */
export const RuleSchema: z.ZodType<Rule> = z.lazy(() =>
  z.union([
    z
      .object({
        type: z.literal("rule"),
        field: z.string().min(1),
        operator: z.enum(ruleOperators),
        value: z.union([scalar, z.array(scalar)]).optional(),
      })
      .strict(),
    z.object({ type: z.enum(["and", "or"]), rules: z.array(RuleSchema).min(1) }).strict(),
  ]),
);

/** A dotted path through plain objects: `contact.first_name`, `payload.plan`. */
export function valueAt(context: unknown, path: string): unknown {
  let value: unknown = context;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

const isEmpty = (v: unknown) => v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);

/** Numbers compare as numbers, anything else as text (ISO dates then order by time). */
function compare(a: unknown, b: unknown): number | undefined {
  if (isEmpty(a) || isEmpty(b)) return undefined;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number" || typeof b === "number") {
    const [x, y] = [Number(a), Number(b)];
    return Number.isFinite(x) && Number.isFinite(y) ? x - y : undefined;
  }
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

const loosely = (a: unknown, b: unknown) =>
  a === b || (a !== undefined && a !== null && b !== undefined && b !== null && String(a) === String(b));

function holds(leaf: Extract<Rule, { type: "rule" }>, context: unknown): boolean {
  const actual = valueAt(context, leaf.field);
  const expected = leaf.value;
  switch (leaf.operator) {
    case "exists":
      return actual !== undefined && actual !== null;
    case "is_empty":
      return isEmpty(actual);
    case "eq":
      return loosely(actual, expected);
    case "neq":
      return !loosely(actual, expected);
    case "contains":
      return Array.isArray(actual)
        ? actual.some((item) => loosely(item, expected))
        : typeof actual === "string" && actual.includes(String(expected ?? ""));
    case "starts_with":
      return typeof actual === "string" && actual.startsWith(String(expected ?? ""));
    case "ends_with":
      return typeof actual === "string" && actual.endsWith(String(expected ?? ""));
    default: {
      const order = compare(actual, expected);
      if (order === undefined) return false;
      return leaf.operator === "gt" ? order > 0 : leaf.operator === "gte" ? order >= 0 : leaf.operator === "lt" ? order < 0 : order <= 0;
    }
  }
}

/** Whether `rule` holds for `context`; a field that is absent fails every comparison but `neq` and `is_empty`. */
export function evaluateRule(rule: Rule, context: unknown): boolean {
  if (rule.type === "rule") return holds(rule, context);
  return rule.type === "and" ? rule.rules.every((r) => evaluateRule(r, context)) : rule.rules.some((r) => evaluateRule(r, context));
}

/** Replaces every `{var: "path"}` in a step's config value by what the path holds in `context`. */
export function resolveVariables(value: unknown, context: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => resolveVariables(v, context));
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1 && entries[0]![0] === "var" && typeof entries[0]![1] === "string") return valueAt(context, entries[0]![1]);
    return Object.fromEntries(entries.map(([k, v]) => [k, resolveVariables(v, context)]));
  }
  return value;
}
