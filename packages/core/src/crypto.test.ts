import { describe, expect, it } from "vitest";
import { createSealer, randomBase62, SealedDataError } from "./crypto.js";

const secret = "s".repeat(40);

describe("sealer (AES-256-GCM)", () => {
  it("opens what it sealed", () => {
    const sealer = createSealer(secret, "dkim");
    const sealed = sealer.seal("private key");
    expect(sealed.startsWith("v1.")).toBe(true);
    expect(sealed).not.toContain("private key");
    expect(sealer.openText(sealed)).toBe("private key");
  });
  it("refuses another secret, another purpose, and tampering", () => {
    const sealed = createSealer(secret, "dkim").seal("x");
    expect(() => createSealer("t".repeat(40), "dkim").open(sealed)).toThrow(SealedDataError);
    expect(() => createSealer(secret, "webhook").open(sealed)).toThrow(SealedDataError);
    const [v, iv, tag, body] = sealed.split(".");
    const flipped = Buffer.from(body!, "base64url");
    flipped[0]! ^= 1;
    expect(() => createSealer(secret, "dkim").open([v, iv, tag, flipped.toString("base64url")].join("."))).toThrow(SealedDataError);
  });
  it("makes base62 text of the asked length", () => {
    const t = randomBase62(40);
    expect(t).toMatch(/^[0-9A-Za-z]{40}$/);
  });
});
