import { v5, version } from "uuid";
import { describe, expect, it } from "vitest";
import { deterministicId, isUuid, newId, TIDINGS_NAMESPACE, timeOrderedId } from "./ids.js";

describe("ids", () => {
  it("makes random v4 ids", () => {
    const a = newId();
    expect(isUuid(a)).toBe(true);
    expect(a).not.toBe(newId());
  });
  it("makes v7 ids that carry their millisecond and sort by it", () => {
    const at = Date.UTC(2026, 10, 29, 10, 30);
    const ids = [timeOrderedId(at), timeOrderedId(at + 1), timeOrderedId(at + 60_000), timeOrderedId(at + 86_400_000)];
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(version(id)).toBe(7);
      expect(id[19]).toMatch(/[89ab]/);
    }
    expect(Number.parseInt(ids[0]!.replace("-", "").slice(0, 12), 16)).toBe(at);
    expect([...ids].reverse().sort()).toEqual(ids);
    expect(timeOrderedId(at)).not.toBe(ids[0]);
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
