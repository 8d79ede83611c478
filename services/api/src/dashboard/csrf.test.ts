import { describe, expect, it } from "vitest";
import { csrfTokenMatches, isSameOrigin, newCsrfToken } from "./csrf.js";

describe("the CSRF token", () => {
  it("is long, URL-safe and new each time", () => {
    const token = newCsrfToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newCsrfToken()).not.toBe(token);
  });

  it("matches only itself", () => {
    const token = newCsrfToken();
    expect(csrfTokenMatches(token, token)).toBe(true);
    expect(csrfTokenMatches(token, newCsrfToken())).toBe(false);
    expect(csrfTokenMatches(token, token.slice(1))).toBe(false);
    expect(csrfTokenMatches(token, "")).toBe(false);
    expect(csrfTokenMatches(token, undefined)).toBe(false);
    expect(csrfTokenMatches(token, [token])).toBe(false);
  });
});

describe("the Origin check", () => {
  it("accepts the server's own origin, and a request without one", () => {
    expect(isSameOrigin("https://mail.example.com", ["https://mail.example.com"])).toBe(true);
    expect(isSameOrigin("HTTPS://Mail.Example.com", ["https://mail.example.com"])).toBe(true);
    expect(isSameOrigin(undefined, ["https://mail.example.com"])).toBe(true);
  });

  it("accepts any of the site's origins", () => {
    expect(isSameOrigin("https://mail.example.com", ["http://127.0.0.1:3000", "https://mail.example.com"])).toBe(true);
  });

  it("refuses another site, another scheme and another port", () => {
    expect(isSameOrigin("https://evil.example", ["https://mail.example.com"])).toBe(false);
    expect(isSameOrigin("http://mail.example.com", ["https://mail.example.com"])).toBe(false);
    expect(isSameOrigin("https://mail.example.com:8443", ["https://mail.example.com"])).toBe(false);
    expect(isSameOrigin("null", ["https://mail.example.com"])).toBe(false);
  });
});
