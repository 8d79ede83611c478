import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";
import { evaluateRule, resolveVariables, type Rule, type RuleOperator } from "./rule.js";

const context = {
  contact: { email: "ada@acme.test", first_name: "Ada", plan: "pro", seats: 3, tags: ["a", "b"], nickname: "" },
  payload: { total: 42.5, when: "2026-11-23" },
};
const leaf = (field: string, operator: RuleOperator, value?: unknown): Rule => ({
  type: "rule",
  field,
  operator,
  value,
});
const holds = (rule: Rule) => evaluateRule(rule, context);

describe("condition rules", () => {
  // Equality is loose across number and text; numbers order as numbers, dates as text; text and arrays
  // match by content; a missing field is never present but always empty.
  it.each<[field: string, operator: RuleOperator, value: unknown, holds: boolean]>([
    ["contact.plan", "eq", "pro", true],
    ["contact.seats", "eq", "3", true],
    ["contact.plan", "neq", "free", true],
    ["contact.missing", "neq", "x", true],
    ["payload.total", "gt", 40, true],
    ["payload.total", "lte", 42.5, true],
    ["contact.seats", "lt", "10", true],
    ["payload.when", "gte", "2026-01-01", true],
    ["contact.missing", "gt", 1, false],
    ["contact.email", "ends_with", "@acme.test", true],
    ["contact.first_name", "starts_with", "Ad", true],
    ["contact.first_name", "contains", "d", true],
    ["contact.tags", "contains", "b", true],
    ["contact.first_name", "exists", undefined, true],
    ["contact.missing", "exists", undefined, false],
    ["contact.nickname", "is_empty", undefined, true],
    ["contact.missing", "is_empty", undefined, true],
  ])("%s %s %j is %s", (field, operator, value, expected) => expect(holds(leaf(field, operator, value))).toBe(expected));
  it("combines with and/or", () => {
    expect(holds({ type: "and", rules: [leaf("contact.plan", "eq", "pro"), leaf("contact.seats", "gt", 5)] })).toBe(false);
    expect(holds({ type: "or", rules: [leaf("contact.plan", "eq", "free"), leaf("contact.seats", "gt", 2)] })).toBe(true);
  });
});

describe("step variables", () => {
  it("replaces {var} references anywhere in a value, leaving literals", () =>
    expect(
      resolveVariables(
        {
          NAME: { var: "contact.first_name" },
          TOTAL: { var: "payload.total" },
          FIXED: "x",
          LIST: [{ var: "contact.plan" }],
          GONE: { var: "payload.nope" },
        },
        context,
      ),
    ).toEqual({
      NAME: "Ada",
      TOTAL: 42.5,
      FIXED: "x",
      LIST: ["pro"],
      GONE: undefined,
    }));
});

describe("durations", () => {
  it("reads a count and a unit", () => {
    expect(parseDuration("2s")).toBe(2_000);
    expect(parseDuration("2 seconds")).toBe(2_000);
    expect(parseDuration("5 minutes")).toBe(300_000);
    expect(parseDuration("1.5 hours")).toBe(5_400_000);
    expect(parseDuration("3 days")).toBe(259_200_000);
  });
  it("refuses what is not one, or out of 1 s–365 days", () => {
    expect(parseDuration("soon")).toBeUndefined();
    expect(parseDuration("10 fortnights")).toBeUndefined();
    expect(parseDuration("0s")).toBeUndefined();
    expect(parseDuration("366 days")).toBeUndefined();
  });
});
