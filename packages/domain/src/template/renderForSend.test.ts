import { describe, expect, it } from "vitest";
import { isDomainError } from "../decider.js";
import { renderTemplate, type TemplateForSend } from "./renderForSend.js";

const aTemplate = (overrides: Partial<TemplateForSend> = {}): TemplateForSend => ({
  templateId: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
  version: 2,
  name: "Receipt",
  subject: "Your order {{{ORDER}}}",
  from: "Shop <shop@acme.test>",
  replyTo: null,
  html: "<p>Hi {{{NAME}}}, total {{{TOTAL}}} {{{CURRENCY|EUR}}}</p>",
  text: null,
  variables: [
    { key: "NAME", type: "string", fallbackValue: "there" },
    { key: "ORDER", type: "string", fallbackValue: null },
    { key: "TOTAL", type: "number", fallbackValue: null },
  ],
  ...overrides,
});

const errorOf = (result: ReturnType<typeof renderTemplate>) =>
  isDomainError(result) ? { name: result.name, message: result.message } : undefined;

describe("renderTemplate", () => {
  it("applies values, declared fallbacks and inline fallbacks", () =>
    expect(renderTemplate(aTemplate(), { ORDER: "A-1", TOTAL: 12.5 })).toEqual({
      from: "Shop <shop@acme.test>",
      subject: "Your order A-1",
      replyTo: [],
      html: "<p>Hi there, total 12.5 EUR</p>",
      text: null,
    }));

  it("HTML-escapes values in html but not in the subject or text", () =>
    expect(renderTemplate(aTemplate({ text: "Hi {{{NAME}}}" }), { NAME: "<Ada & co>", ORDER: "<1>", TOTAL: 1 })).toMatchObject({
      subject: "Your order <1>",
      html: "<p>Hi &lt;Ada &amp; co&gt;, total 1 EUR</p>",
      text: "Hi <Ada & co>",
    }));

  it("names a used variable that has no value and no fallback", () =>
    expect(errorOf(renderTemplate(aTemplate(), { ORDER: "A-1" }))).toEqual({
      name: "validation_error",
      message: expect.stringMatching(/`TOTAL`/),
    }));

  it("needs no value for a subject the payload replaces", () =>
    expect(renderTemplate(aTemplate(), { TOTAL: 3 }, { subject: "Thanks" })).toMatchObject({ subject: "Thanks" }));

  it("lets the payload's from and reply_to win over the template's", () =>
    expect(
      renderTemplate(aTemplate({ replyTo: ["a@acme.test"] }), { ORDER: "1", TOTAL: 1 }, { from: "me@acme.test", replyTo: ["b@acme.test"] }),
    ).toMatchObject({ from: "me@acme.test", replyTo: ["b@acme.test"] }));

  it("uses the template's reply_to when the payload has none", () =>
    expect(renderTemplate(aTemplate({ replyTo: ["a@acme.test"] }), { ORDER: "1", TOTAL: 1 })).toMatchObject({ replyTo: ["a@acme.test"] }));

  it("requires a sender when the template has none", () =>
    expect(errorOf(renderTemplate(aTemplate({ from: null }), { ORDER: "1", TOTAL: 1 }))).toEqual({
      name: "missing_required_field",
      message: expect.stringMatching(/`from`/),
    }));

  it("requires a subject when the template has none", () =>
    expect(errorOf(renderTemplate(aTemplate({ subject: null }), { TOTAL: 1 }))).toEqual({
      name: "missing_required_field",
      message: expect.stringMatching(/`subject`/),
    }));

  it("refuses text for a number variable", () =>
    expect(errorOf(renderTemplate(aTemplate(), { ORDER: "1", TOTAL: "12" }))?.message).toMatch(
      /`template\.variables\.TOTAL` must be a number/,
    ));

  it("refuses a string value over 2000 characters", () =>
    expect(errorOf(renderTemplate(aTemplate(), { ORDER: "x".repeat(2001), TOTAL: 1 }))?.message).toMatch(/at most 2000/));

  it("refuses a value that is neither text nor a number", () =>
    expect(errorOf(renderTemplate(aTemplate(), { ORDER: { a: 1 }, TOTAL: 1 }))?.message).toMatch(/string or a number/));

  it("keeps an empty text part empty, so no text is generated", () =>
    expect(renderTemplate(aTemplate({ text: "" }), { ORDER: "1", TOTAL: 1 })).toMatchObject({ text: "" }));
});
