import { describe, expect, it } from "vitest";
import { bearerTokenAccepted } from "./bearerToken.js";

describe("bearerTokenAccepted", () => {
  const token = "s3cret-metrics-token";

  it("lets any scrape through when no token is set", () => {
    expect(bearerTokenAccepted(undefined, undefined)).toBe(true);
    expect(bearerTokenAccepted(undefined, "Bearer anything")).toBe(true);
  });

  it("takes the token as a bearer token, the scheme in any case", () => {
    expect(bearerTokenAccepted(token, `Bearer ${token}`)).toBe(true);
    expect(bearerTokenAccepted(token, `bearer ${token}`)).toBe(true);
  });

  it("refuses a missing header, another scheme, another token, or a prefix of it", () => {
    expect(bearerTokenAccepted(token, undefined)).toBe(false);
    expect(bearerTokenAccepted(token, `Basic ${token}`)).toBe(false);
    expect(bearerTokenAccepted(token, "Bearer s3cret-metrics-tokeN")).toBe(false);
    expect(bearerTokenAccepted(token, "Bearer s3cret")).toBe(false);
    expect(bearerTokenAccepted(token, `Bearer ${token} `)).toBe(false);
  });
});
