import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonicalJson.js";

describe("canonical JSON", () => {
  it("writes the same bytes whatever order the keys come in", () => {
    const a = { type: "email.sent", created_at: "t", data: { to: ["x"], email_id: "e", tags: { b: "2", a: "1" } } };
    const b = { data: { tags: { a: "1", b: "2" }, email_id: "e", to: ["x"] }, created_at: "t", type: "email.sent" };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(b)).toBe('{"type":"email.sent","created_at":"t","data":{"email_id":"e","tags":{"a":"1","b":"2"},"to":["x"]}}');
  });
});
