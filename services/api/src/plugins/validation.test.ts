import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { $ZodType } from "zod/v4/core";
import { TidingsError } from "@tidings/core";
import { zodValidatorCompiler } from "./validation.js";

function failure(schema: $ZodType, data: unknown, httpPart = "body") {
  const validate = zodValidatorCompiler({ schema, httpPart, method: "POST", url: "/x" });
  const result = validate(data) as { error?: TidingsError };
  if (!(result.error instanceof TidingsError)) throw new Error("expected a validation failure");
  return { code: result.error.code, message: result.error.message };
}

describe("validation messages name the field in backticks", () => {
  it.each([
    ["an empty required string", z.object({ name: z.string().min(1) }), { name: "" }, "`name` must not be empty."],
    [
      "a string over its maximum",
      z.object({ name: z.string().max(50) }),
      { name: "x".repeat(51) },
      "`name` must be at most 50 characters long.",
    ],
    [
      "an array over its maximum",
      z.object({ to: z.array(z.string()).max(50) }),
      { to: Array(51).fill("a") },
      "`to` must contain at most 50 items.",
    ],
    ["a fraction for an integer", z.object({ n: z.number().int() }), { n: 1.5 }, "`n` must be an integer."],
    ["a number below its minimum", z.object({ n: z.number().min(1) }), { n: 0 }, "`n` must be greater than or equal to 1."],
    ["an invalid email", z.object({ from: z.email() }), { from: "nope" }, "`from` must be a valid email address."],
    ["an invalid uuid", z.object({ id: z.uuid() }), { id: "nope" }, "`id` must be a valid UUID."],
    [
      "a value outside an enum",
      z.object({ permission: z.enum(["full_access", "sending_access"]) }),
      { permission: "all" },
      "`permission` must be one of `full_access`, `sending_access`.",
    ],
    ["an unknown key in a strict object", z.strictObject({ a: z.string() }), { a: "x", b: 1 }, "Unknown field `b`."],
    [
      "a missing field inside an array item",
      z.object({ tags: z.array(z.object({ name: z.string() })) }),
      { tags: [{ name: "a" }, {}] },
      "Missing `tags[1].name` field.",
    ],
    ["a wrong type inside a batch item", z.array(z.object({ to: z.string() })), [{ to: 1 }], "`[0].to` must be a string."],
  ])("%s", (_case, schema, data, message) => {
    expect(failure(schema, data).message).toBe(message);
  });

  it("keeps a message the schema author wrote, prefixing the field when the message does not name it", () => {
    expect(failure(z.object({ a: z.string().min(3, "`a` is too short, use 3+") }), { a: "x" }).message).toBe("`a` is too short, use 3+");
    expect(failure(z.object({ a: z.string().min(3, "too short") }), { a: "x" }).message).toBe("`a`: too short");
  });

  it("calls a missing query parameter a parameter, with its own error name", () => {
    expect(failure(z.object({ status: z.string() }), {}, "querystring")).toEqual({
      code: "missing_required_parameter",
      message: "Missing `status` parameter.",
    });
  });

  it("calls a left-out enum or union field missing", () => {
    expect(failure(z.object({ type: z.enum(["string", "number"]) }), {})).toEqual({
      code: "missing_required_field",
      message: "Missing `type` field.",
    });
    expect(failure(z.object({ value: z.union([z.string(), z.number()]) }), {})).toEqual({
      code: "missing_required_field",
      message: "Missing `value` field.",
    });
  });

  it("reports a present but null field as the wrong type, not as missing", () => {
    expect(failure(z.object({ to: z.string() }), { to: null })).toEqual({ code: "validation_error", message: "`to` must be a string." });
  });
});
