import { describe, expect, it } from "vitest";
import { deterministicId, isUuid, newId } from "./ids.js";

describe("ids", () => {
  it("makes random v4 ids", () => {
    const a = newId();
    expect(isUuid(a)).toBe(true);
    expect(a).not.toBe(newId());
  });
  it("derives the same v5 id from the same parts, and another from other parts", () => {
    expect(deterministicId("email", "x")).toBe(deterministicId("email", "x"));
    expect(deterministicId("email", "x")).not.toBe(deterministicId("emailx", ""));
    expect(deterministicId("a")[14]).toBe("5");
  });
});
