import { describe, expect, it } from "vitest";
import { shareLinks } from "./shareLinks.js";

const links = shareLinks({ secret: "a".repeat(64), publicUrl: "https://mail.example.test/" });
const claims = {
  shareId: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
  emailId: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
  expiresAt: 1_800_000_000,
};
const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

describe("share links", () => {
  it("are /shared?token= on the public URL, with a JWS token as Resend's example shows", () => {
    const url = links.url(claims);
    expect(url).toMatch(/^https:\/\/mail\.example\.test\/shared\?token=eyJhbGciOiJIUzI1NiJ9\.[\w-]+\.[\w-]+$/);
  });

  it("read back the claims they were made with", () => expect(links.read(tokenOf(links.url(claims)))).toEqual(claims));

  it("are worthless with one character changed", () => {
    const token = tokenOf(links.url(claims));
    const changed = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    expect(links.read(changed)).toBeUndefined();
  });

  it("are worthless under another secret", () => {
    const other = shareLinks({ secret: "b".repeat(64), publicUrl: "https://mail.example.test" });
    expect(other.read(tokenOf(links.url(claims)))).toBeUndefined();
  });

  it("refuse what is not a token", () => {
    for (const text of ["", "a.b", "a.b.c.d", "eyJhbGciOiJIUzI1NiJ9.e30.x"]) expect(links.read(text)).toBeUndefined();
  });
});
