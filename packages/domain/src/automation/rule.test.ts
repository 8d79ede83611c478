import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";
import { evaluateRule, resolveVariables, type Rule } from "./rule.js";

const context = {
  contact: { email: "ada@acme.test", first_name: "Ada", plan: "pro", seats: 3, tags: ["a", "b"], nickname: "" },
  payload: { total: 42.5, when: "2026-11-23" },
};
const leaf = (field: string, operator: Extract<Rule, { type: "rule" }>["operator"], value?: unknown): Rule => ({
  type: "rule",
  field,
  operator,
  value,
});
const holds = (rule: Rule) => evaluateRule(rule, context);

describe("condition rules", () => {
  it("compares for equality, loosely across number and text", () => {
    expect(holds(leaf("contact.plan", "eq", "pro"))).toBe(true);
    expect(holds(leaf("contact.seats", "eq", "3"))).toBe(true);
    expect(holds(leaf("contact.plan", "neq", "free"))).toBe(true);
    expect(holds(leaf("contact.missing", "neq", "x"))).toBe(true);
  });
  it("orders numbers as numbers and dates as text", () => {
    expect(holds(leaf("payload.total", "gt", 40))).toBe(true);
    expect(holds(leaf("payload.total", "lte", 42.5))).toBe(true);
    expect(holds(leaf("contact.seats", "lt", "10"))).toBe(true);
    expect(holds(leaf("payload.when", "gte", "2026-01-01"))).toBe(true);
    expect(holds(leaf("contact.missing", "gt", 1))).toBe(false);
  });
  it("matches text and arrays", () => {
    expect(holds(leaf("contact.email", "ends_with", "@acme.test"))).toBe(true);
    expect(holds(leaf("contact.first_name", "starts_with", "Ad"))).toBe(true);
    expect(holds(leaf("contact.first_name", "contains", "d"))).toBe(true);
    expect(holds(leaf("contact.tags", "contains", "b"))).toBe(true);
  });
  it("tells present from empty", () => {
    expect(holds(leaf("contact.first_name", "exists"))).toBe(true);
    expect(holds(leaf("contact.missing", "exists"))).toBe(false);
    expect(holds(leaf("contact.nickname", "is_empty"))).toBe(true);
    expect(holds(leaf("contact.missing", "is_empty"))).toBe(true);
  });
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
