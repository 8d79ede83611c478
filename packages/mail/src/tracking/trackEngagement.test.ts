import { describe, expect, it } from "vitest";
import { trackEngagement } from "./trackEngagement.js";
import { clickToken, openToken, readClickToken, readOpenToken } from "./trackingTokens.js";

const secret = "s".repeat(40);
const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const base = "https://links.acme.test";
const options = { baseUrl: base, secret, emailId, opens: true, clicks: true };
const tokens = (html: string, kind: "c" | "o") => [...html.matchAll(new RegExp(`${base}/${kind}/([^"]+)`, "g"))].map((m) => m[1]!);

describe("tracking tokens", () => {
  it("carry the email, the link's index and its target, and are checked by their signature alone", () => {
    const token = clickToken(secret, { emailId, linkIndex: 3, url: "https://acme.test/a?b=ü&c=1" });
    expect(readClickToken(secret, token)).toEqual({ emailId, linkIndex: 3, url: "https://acme.test/a?b=ü&c=1" });
    expect(readOpenToken(secret, openToken(secret, emailId))).toBe(emailId);
  });

  it("refuse a changed character, another secret, and an open token used as a click's", () => {
    const token = clickToken(secret, { emailId, linkIndex: 0, url: "https://acme.test/" });
    const flipped = token.slice(0, 5) + (token[5] === "A" ? "B" : "A") + token.slice(6);
    expect(readClickToken(secret, flipped)).toBeUndefined();
    expect(readClickToken("t".repeat(40), token)).toBeUndefined();
    expect(readClickToken(secret, openToken(secret, emailId))).toBeUndefined();
    expect(readOpenToken(secret, "garbage")).toBeUndefined();
    expect(readOpenToken(secret, `${token}.x`)).toBeUndefined();
  });
});

describe("trackEngagement", () => {
  it("rewrites each http(s) link, decoding entities, and leaves other links alone", () => {
    const html = `<a href="https://acme.test/a?x=1&amp;y=2">A</a> <A class=b HREF='http://acme.test/b'>B</A> <a href=https://acme.test/c>C</a>
      <a href="mailto:hi@acme.test">mail</a> <a href="#top">top</a> <a href="https://acme.test/unsubscribe/t">u</a>`;
    const tracked = trackEngagement(html, { ...options, opens: false, keep: (url) => url.includes("/unsubscribe/") });
    expect(tokens(tracked, "c").map((t) => readClickToken(secret, t))).toEqual([
      { emailId, linkIndex: 0, url: "https://acme.test/a?x=1&y=2" },
      { emailId, linkIndex: 1, url: "http://acme.test/b" },
      { emailId, linkIndex: 2, url: "https://acme.test/c" },
    ]);
    expect(tracked).toContain('<a href="mailto:hi@acme.test">');
    expect(tracked).toContain('<a href="#top">');
    expect(tracked).toContain('<a href="https://acme.test/unsubscribe/t">');
    expect(tracked).toContain('<A class=b HREF="https://links.acme.test/c/');
    expect(tracked).not.toContain("/o/");
  });

  it("adds one 1×1 pixel before </body>, or at the end without one", () => {
    const tracked = trackEngagement("<html><body><p>Hi</p></body></html>", { ...options, clicks: false });
    expect(tracked).toMatch(
      /<p>Hi<\/p><img src="https:\/\/links\.acme\.test\/o\/[^"]+" width="1" height="1" alt="" [^>]*\/><\/body><\/html>$/,
    );
    expect(readOpenToken(secret, tokens(tracked, "o")[0]!)).toBe(emailId);
    expect(trackEngagement("<p>Hi</p>", { ...options, clicks: false })).toMatch(/^<p>Hi<\/p><img /);
  });

  it("yields the same bytes every time, so every attempt sends the same message", () =>
    expect(trackEngagement('<a href="https://acme.test">x</a>', options)).toBe(
      trackEngagement('<a href="https://acme.test">x</a>', options),
    ));
});
