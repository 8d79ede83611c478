import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fingerprint, takesIdempotencyKeys } from "./idempotency.js";

describe("takesIdempotencyKeys", () => {
  const created = { response: { 201: z.object({ id: z.string() }) } };
  const answered = { response: { 200: z.object({ id: z.string() }) } };

  it("is on for a POST that answers 201, and for a POST that opts in", () => {
    expect(takesIdempotencyKeys({ method: "POST", schema: created })).toBe(true);
    expect(takesIdempotencyKeys({ method: "POST", schema: answered, config: { idempotency: true } })).toBe(true);
  });

  it("is off for other POSTs, for other methods, and for a route that opts out", () => {
    expect(takesIdempotencyKeys({ method: "POST", schema: answered })).toBe(false);
    expect(takesIdempotencyKeys({ method: "PATCH", schema: created })).toBe(false);
    expect(takesIdempotencyKeys({ method: "POST", schema: created, config: { idempotency: false } })).toBe(false);
  });
});

describe("fingerprint", () => {
  it("is the same for the same body whatever the order of its keys", () => {
    expect(fingerprint({ to: "a", subject: "b", tags: [{ name: "n", value: "v" }] })).toBe(
      fingerprint({ tags: [{ value: "v", name: "n" }], subject: "b", to: "a" }),
    );
  });

  it("differs when a value, an array order or a type differs", () => {
    const base = fingerprint({ to: ["a", "b"] });
    expect(fingerprint({ to: ["b", "a"] })).not.toBe(base);
    expect(fingerprint({ to: ["a", "c"] })).not.toBe(base);
    expect(fingerprint({ n: 1 })).not.toBe(fingerprint({ n: "1" }));
    expect(fingerprint(undefined)).not.toBe(fingerprint({}));
  });
});
