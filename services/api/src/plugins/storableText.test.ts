import { describe, expect, it } from "vitest";
import { findUnstorableText } from "./storableText.js";

describe("findUnstorableText", () => {
  it("accepts ordinary text, emoji and nesting", () => {
    expect(findUnstorableText({ name: "Zoë 📮", to: ["a@b.c"], headers: { "X-A": "1" } })).toBeUndefined();
  });
  it("names a field holding a NUL character", () => {
    expect(findUnstorableText({ name: "a\u0000b" })).toBe("name");
  });
  it("names an array item holding a lone surrogate", () => {
    expect(findUnstorableText({ to: ["a@b.c", "\ud800"] })).toBe("to[1]");
  });
  it("names the object whose key holds a NUL character, without echoing the key", () => {
    expect(findUnstorableText({ headers: { "X-\u0000": "v" } })).toBe("headers");
  });
  it("names the body itself when it is a bad string", () => {
    expect(findUnstorableText("\u0000")).toBe("body");
  });
});
