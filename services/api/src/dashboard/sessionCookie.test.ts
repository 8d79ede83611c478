import { describe, expect, it } from "vitest";
import { clearedSessionCookie, sessionCookie, sessionIdFrom } from "./sessionCookie.js";

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Strict and scoped to the dashboard, over http", () => {
    expect(sessionCookie("abc", { secure: false })).toBe("tidings_dashboard=abc; Path=/dashboard; HttpOnly; SameSite=Strict");
  });

  it("is also Secure over https", () => {
    expect(sessionCookie("abc", { secure: true })).toBe("tidings_dashboard=abc; Path=/dashboard; HttpOnly; SameSite=Strict; Secure");
  });

  it("is cleared with an empty value that expires at once", () => {
    expect(clearedSessionCookie({ secure: true })).toBe(
      "tidings_dashboard=; Path=/dashboard; HttpOnly; SameSite=Strict; Secure; Max-Age=0",
    );
  });

  it("is read from a Cookie header among others", () => {
    expect(sessionIdFrom("a=1; tidings_dashboard=xyz; b=2")).toBe("xyz");
    expect(sessionIdFrom("tidings_dashboard=")).toBeUndefined();
    expect(sessionIdFrom("other=1")).toBeUndefined();
    expect(sessionIdFrom(undefined)).toBeUndefined();
  });
});
