import { describe, expect, it } from "vitest";
import { readUnsubscribeToken, unsubscribeToken, unsubscribeUrl, type UnsubscribeClaims } from "./unsubscribeLinks.js";

const secret = "s".repeat(40);
const now = new Date("2026-11-23T00:00:00Z");
const claims: UnsubscribeClaims = {
  contactId: "00000000-0000-4000-8000-000000000001",
  teamId: "00000000-0000-4000-8000-000000000002",
  topicId: "00000000-0000-4000-8000-000000000003",
  expiresAt: now.getTime() / 1000 + 3600,
};

describe("unsubscribe links", () => {
  it("reads back the claims it signed, with or without a topic", () => {
    expect(readUnsubscribeToken(secret, unsubscribeToken(secret, claims), now)).toEqual(claims);
    expect(readUnsubscribeToken(secret, unsubscribeToken(secret, { ...claims, topicId: null }), now)).toEqual({ ...claims, topicId: null });
  });
  it("refuses a tampered token, another secret's token, and garbage", () => {
    const token = unsubscribeToken(secret, claims);
    const other = unsubscribeToken(secret, { ...claims, contactId: "00000000-0000-4000-8000-000000000009" });
    expect(readUnsubscribeToken(secret, `${other.split(".")[0]}.${token.split(".")[1]}`, now)).toBeUndefined();
    expect(readUnsubscribeToken(secret, token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"), now)).toBeUndefined();
    expect(readUnsubscribeToken("t".repeat(40), token, now)).toBeUndefined();
    expect(readUnsubscribeToken(secret, "nonsense", now)).toBeUndefined();
    expect(readUnsubscribeToken(secret, `${token}.x`, now)).toBeUndefined();
  });
  it("refuses an expired token", () => {
    expect(readUnsubscribeToken(secret, unsubscribeToken(secret, claims), new Date((claims.expiresAt + 1) * 1000))).toBeUndefined();
  });
  it("builds the URL under PUBLIC_URL", () => {
    expect(unsubscribeUrl("https://mail.example.com/", secret, claims)).toBe(
      `https://mail.example.com/unsubscribe/${unsubscribeToken(secret, claims)}`,
    );
  });
});
