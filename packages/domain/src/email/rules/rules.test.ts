import { describe, expect, it } from "vitest";
import { DomainError } from "../../decider.js";
import { bareAddresses, checkFrom, checkRecipients, parseMailbox } from "./address.js";
import { base64Length, checkAttachments, checkAttachmentsTotal, MAX_ATTACHMENTS_BASE64_BYTES } from "./attachments.js";
import { checkContent } from "./content.js";
import { checkHeaders } from "./headers.js";
import { parseScheduledAt } from "./scheduledAt.js";
import { checkTags } from "./tags.js";

const errorOf = (result: DomainError | undefined | Date) =>
  result instanceof DomainError ? { name: result.name, message: result.message } : undefined;

describe("from and recipients", () => {
  it("accepts a bare address and a named one", () => {
    expect(parseMailbox("a@b.co")).toEqual({ name: null, address: "a@b.co" });
    expect(parseMailbox("Acme Team <hi@acme.test>")).toEqual({ name: "Acme Team", address: "hi@acme.test" });
    expect(parseMailbox('"Acme, Inc" <hi@acme.test>')).toEqual({ name: "Acme, Inc", address: "hi@acme.test" });
    expect(checkFrom("Acme <hi@acme.test>")).toBeUndefined();
  });

  it.each(["acme", "a@b", "Acme <a@b>", "Acme <hi@acme.test", "a @b.c", "<>", ""])("rejects the from address %j", (from) =>
    expect(errorOf(checkFrom(from))).toEqual({ name: "invalid_from_address", message: expect.stringMatching(/`from`/) }),
  );

  it("accepts 50 recipients in to and rejects 51", () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@example.test`);
    expect(checkRecipients("to", many(50))).toBeUndefined();
    expect(errorOf(checkRecipients("to", many(51)))).toEqual({
      name: "validation_error",
      message: "Too many recipients in `to`: at most 50.",
    });
  });

  it("refuses a from longer than a mail line without running the patterns on it", () =>
    expect(errorOf(checkFrom(`a@b${".c".repeat(1_000_000)}`))?.name).toBe("invalid_from_address"));

  it("requires a to recipient", () => expect(errorOf(checkRecipients("to", []))?.name).toBe("missing_required_field"));

  it("names the field of an invalid cc address", () => expect(errorOf(checkRecipients("cc", ["nope"]))?.message).toMatch(/`cc`/));

  it("compares addresses without their names and case", () =>
    expect(bareAddresses(["Ann <Ann@Example.test>"])).toEqual(["ann@example.test"]));
});

describe("content", () => {
  it("rejects a template together with html", () =>
    expect(errorOf(checkContent({ template: { id: "t" }, html: "<p>x</p>", subject: "s" }, null))).toEqual({
      name: "validation_error",
      message: "The `template` field cannot be used together with `html`.",
    }));

  it("requires a subject unless the template supplies one", () => {
    expect(errorOf(checkContent({ html: "x" }, null))).toEqual({ name: "missing_required_field", message: "Missing `subject` field." });
    expect(checkContent({ template: { id: "t" } }, "From the template")).toBeUndefined();
  });

  it("requires html or text without a template", () =>
    expect(errorOf(checkContent({ subject: "s" }, null))?.message).toMatch(/`html` or `text`/));
});

describe("tags", () => {
  it("accepts letters, digits, underscores and dashes", () =>
    expect(checkTags([{ name: "category_1", value: "welcome-mail" }])).toBeUndefined());

  it.each([
    { name: "has space", value: "x" },
    { name: "x", value: "é" },
    { name: "x".repeat(257), value: "x" },
    { name: "x", value: "" },
  ])("rejects the tag %j", (tag) => expect(errorOf(checkTags([tag]))?.message).toMatch(/`tags`/));
});

describe("headers", () => {
  it("accepts custom headers", () =>
    expect(checkHeaders({ "X-Entity-Ref-ID": "123", "List-Unsubscribe": "<https://x.test/u>" })).toBeUndefined());

  it("rejects a line break in a value (header injection)", () =>
    expect(errorOf(checkHeaders({ "X-Note": "a\r\nBcc: victim@example.test" }))?.message).toMatch(/line breaks/));

  it.each(["Message-ID", "from", "BCC", "Subject", "Date", "MIME-Version", "Content-Type", "Content-Transfer-Encoding", "DKIM-Signature"])(
    "rejects the header Tidings sets itself: %s",
    (name) => expect(errorOf(checkHeaders({ [name]: "x" }))?.message).toMatch(/set by Tidings/),
  );

  it("rejects a header name with a colon", () => expect(errorOf(checkHeaders({ "X:Y": "x" }))?.message).toMatch(/not a valid header name/));
});

describe("attachments", () => {
  it("accepts base64 content and an https path", () =>
    expect(checkAttachments([{ content: "aGVsbG8=", filename: "a.txt" }, { path: "https://example.test/a.pdf" }])).toBeUndefined());

  it.each([
    [{ filename: "a.txt" }, /needs `content` or `path`/],
    [{ content: "not base64!", filename: "a.txt" }, /base64/],
    [{ content: "aGVsbG8=" }, /`filename`/],
    [{ path: "file:///etc/passwd" }, /http or https/],
    [{ content: "aGVsbG8=", path: "https://x.test/a", filename: "a" }, /not both/],
    [{ content: "aGVsbG8=", filename: "a.txt", content_id: "<logo>" }, /content_id/],
  ])("rejects the attachment %j", (attachment, message) =>
    expect(errorOf(checkAttachments([attachment]))).toEqual({ name: "invalid_attachment", message: expect.stringMatching(message) }),
  );

  it("checks 40 MB of base64 without overflowing the regex stack", () =>
    expect(errorOf(checkAttachments([{ content: "A".repeat(MAX_ATTACHMENTS_BASE64_BYTES + 4), filename: "big.bin" }]))?.name).toBe(
      "invalid_attachment",
    ));

  it("rejects base64 with padding in the middle", () =>
    expect(errorOf(checkAttachments([{ content: "aGk=aGk=", filename: "a.txt" }]))?.message).toMatch(/base64/));

  it("caps the total at 40 MB after base64", () => {
    expect(checkAttachmentsTotal(MAX_ATTACHMENTS_BASE64_BYTES)).toBeUndefined();
    expect(errorOf(checkAttachmentsTotal(MAX_ATTACHMENTS_BASE64_BYTES + 1))?.name).toBe("invalid_attachment");
    expect(base64Length(5)).toBe(8);
  });
});

describe("scheduled_at", () => {
  const now = new Date("2026-11-23T10:00:00Z");

  it("reads ISO 8601 and the wire timestamp", () => {
    expect(parseScheduledAt("2026-11-24T09:30:00Z", now)).toEqual(new Date("2026-11-24T09:30:00Z"));
    expect(parseScheduledAt("2026-11-24T11:30:00+02:00", now)).toEqual(new Date("2026-11-24T09:30:00Z"));
    expect(parseScheduledAt("2026-11-24 09:30:00.000000+00", now)).toEqual(new Date("2026-11-24T09:30:00Z"));
  });

  it("reads natural language against the given now", () => {
    expect(parseScheduledAt("in 1 hour", now)).toEqual(new Date("2026-11-23T11:00:00Z"));
    expect(parseScheduledAt("tomorrow at 9am", now)).toEqual(new Date("2026-11-24T09:00:00Z"));
  });

  it("rejects text that is no date", () => expect(errorOf(parseScheduledAt("banana", now))?.message).toMatch(/Invalid `scheduled_at`/));

  it("rejects a time in the past", () => expect(errorOf(parseScheduledAt("2026-11-22T10:00:00Z", now))?.message).toMatch(/in the future/));

  it("accepts 30 days ahead and rejects 31", () => {
    expect(parseScheduledAt("in 30 days", now)).toEqual(new Date("2026-12-23T10:00:00Z"));
    expect(errorOf(parseScheduledAt("in 31 days", now))?.message).toMatch(/at most 30 days/);
  });
});
