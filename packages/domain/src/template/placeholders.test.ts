import { describe, expect, it } from "vitest";
import { placeholdersIn, renderPlaceholders } from "./placeholders.js";

describe("placeholdersIn", () => {
  it("finds keys with and without an inline fallback, in order", () =>
    expect(placeholdersIn("Hi {{{NAME|there}}}, you owe {{{AMOUNT}}}. {{{NAME}}}")).toEqual([
      { key: "NAME", fallback: "there" },
      { key: "AMOUNT", fallback: null },
      { key: "NAME", fallback: null },
    ]));

  it("reads dotted keys such as contact fields", () =>
    expect(placeholdersIn("{{{contact.first_name|friend}}}")).toEqual([{ key: "contact.first_name", fallback: "friend" }]));

  it("keeps an empty fallback apart from no fallback", () => expect(placeholdersIn("{{{A|}}}")).toEqual([{ key: "A", fallback: "" }]));

  it("ignores double braces", () => expect(placeholdersIn("{{NAME}} {{ NAME }}")).toEqual([]));
});

describe("renderPlaceholders", () => {
  it("replaces a key by its value", () =>
    expect(renderPlaceholders("Hi {{{NAME}}}!", { NAME: "Ada" }, { escapeHtml: false })).toBe("Hi Ada!"));

  it("renders numbers as text", () => expect(renderPlaceholders("{{{N}}} items", { N: 3.5 }, { escapeHtml: true })).toBe("3.5 items"));

  it("uses the inline fallback when the value is missing", () =>
    expect(renderPlaceholders("Hi {{{NAME|there}}}", {}, { escapeHtml: false })).toBe("Hi there"));

  it("prefers the value to the inline fallback", () =>
    expect(renderPlaceholders("Hi {{{NAME|there}}}", { NAME: "Ada" }, { escapeHtml: false })).toBe("Hi Ada"));

  it("HTML-escapes values in html parts", () =>
    expect(renderPlaceholders("<p>{{{NAME}}}</p>", { NAME: `<b>"Tom" & 'Jerry'</b>` }, { escapeHtml: true })).toBe(
      "<p>&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;</p>",
    ));

  it("leaves values as written in text parts", () =>
    expect(renderPlaceholders("{{{NAME}}}", { NAME: "<b>" }, { escapeHtml: false })).toBe("<b>"));

  it("renders dotted keys", () =>
    expect(renderPlaceholders("Hi {{{contact.first_name|friend}}}", { "contact.first_name": "Ada" }, { escapeHtml: false })).toBe(
      "Hi Ada",
    ));

  it("leaves a placeholder with neither value nor fallback as written", () =>
    expect(renderPlaceholders("Hi {{{NAME}}}", {}, { escapeHtml: true })).toBe("Hi {{{NAME}}}"));

  it("does not treat a value as a placeholder", () =>
    expect(renderPlaceholders("{{{A}}}{{{B}}}", { A: "{{{B}}}", B: "x" }, { escapeHtml: false })).toBe("{{{B}}}x"));
});
