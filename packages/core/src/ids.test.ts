import { v5 } from "uuid";
import { describe, expect, it } from "vitest";
import { deterministicId, isUuid, newId, TIDINGS_NAMESPACE } from "./ids.js";

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
  it("derives the ids uuid's v5 derives, so ids stored before stay the ones found again", () => {
    const partsList = [[], [""], ["email", newId()], ["webhook-delivery", newId(), newId()], ["é ✓ 𝄞", "\u001f", "x".repeat(300)]];
    for (const parts of partsList) expect(deterministicId(...parts)).toBe(v5(parts.join("\u001f"), TIDINGS_NAMESPACE));
  });
});
