import { describe, expect, it } from "vitest";
import { maxRedactionDepth, redactSecrets, storedReplyBody, storedRequestBody } from "./requestLogsRedaction.js";

describe("request log redaction", () => {
  it("replaces tokens and signing secrets at any depth, and leaves the original untouched", () => {
    const body = { data: [{ id: "k1", token: "re_abc" }], webhook: { signing_secret: "whsec_x", endpoint: "https://e.example" } };
    expect(redactSecrets(body)).toEqual({
      data: [{ id: "k1", token: "[redacted]" }],
      webhook: { signing_secret: "[redacted]", endpoint: "https://e.example" },
    });
    expect(body.data[0]!.token).toBe("re_abc");
  });

  it("replaces the content of attachments, keeping their other fields", () => {
    const body = { to: ["a@example.com"], attachments: [{ filename: "a.pdf", content: "QUJD" }, { path: "https://files.example/b.pdf" }] };
    expect(redactSecrets(body)).toEqual({
      to: ["a@example.com"],
      attachments: [{ filename: "a.pdf", content: "[redacted]" }, { path: "https://files.example/b.pdf" }],
    });
  });

  it("keeps a `content` that is not an attachment's", () => {
    expect(redactSecrets({ content: "kept", headers: { content: "kept" } })).toEqual({ content: "kept", headers: { content: "kept" } });
  });

  it("redacts inside each email of a batch", () => {
    const batch = [{ to: "a@example.com", attachments: [{ filename: "x", content: "Zm9v" }] }];
    expect(JSON.parse(storedRequestBody(batch)!)).toEqual([
      { to: "a@example.com", attachments: [{ filename: "x", content: "[redacted]" }] },
    ]);
  });

  it("stores a reply without secrets exactly as sent, and no body as null", () => {
    expect(storedReplyBody('{"object":"list","data":[]}')).toBe('{"object":"list","data":[]}');
    expect(storedReplyBody('{"token":"re_abc","id":"k"}')).toBe('{"token":"[redacted]","id":"k"}');
    expect(storedReplyBody(Buffer.from("{}"))).toBeNull();
    expect(storedRequestBody(undefined)).toBeNull();
  });

  it("stops at a bounded depth, redacting what lies deeper, so a deep reply cannot overflow the stack", () => {
    const levels = 100_000;
    const stored = storedReplyBody(`{"token":"re_top","deep":${"[".repeat(levels)}{"token":"re_deep"}${"]".repeat(levels)}}`)!;
    expect(stored).not.toContain("re_");
    let level: unknown = (JSON.parse(stored) as { deep: unknown }).deep;
    let depth = 1;
    while (Array.isArray(level)) [level, depth] = [level[0], depth + 1];
    expect([level, depth]).toEqual(["[redacted]", maxRedactionDepth]);
  });
});
