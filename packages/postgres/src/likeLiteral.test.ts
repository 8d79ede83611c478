import { describe, expect, it } from "vitest";
import { likeLiteral } from "./likeLiteral.js";

describe("likeLiteral", () => {
  it("escapes the LIKE wildcards and the escape character, and leaves the rest", () => {
    expect(likeLiteral(String.raw`50%_off\now`)).toBe(String.raw`50\%\_off\\now`);
    expect(likeLiteral("ann@example.com")).toBe("ann@example.com");
  });
});
