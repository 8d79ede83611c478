import { describe, expect, it } from "vitest";
import { textPart } from "./textPart.js";

describe("an email's text part", () => {
  it("is the text given", () => expect(textPart("<p>Hi</p>", "Hello there")).toBe("Hello there"));
  it("is none when the text is empty: generation turned off", () => expect(textPart("<p>Hi</p>", "")).toBeNull());
  it("is generated from the html when the text is omitted", () => {
    expect(textPart("<p>Hi <b>Ann</b></p>", undefined)).toBe("Hi Ann");
    expect(textPart("<p>Hi</p>", null)).toBe("Hi");
  });
  it("is none with neither html nor text", () => expect(textPart(null, undefined)).toBeNull());
});
