import { describe, expect, it } from "vitest";
import { hasPlainTextBody } from "./plainTextBody.js";

const alternative = (parts: string) =>
  `Content-Type: multipart/mixed; boundary=m\r\n\r\n--m\r\nContent-Type: multipart/alternative; boundary=a\r\n\r\n${parts}--a--\r\n--m--\r\n`;

describe("hasPlainTextBody", () => {
  it("finds a text/plain body, also nested, and a message without a content type (text/plain by default)", () => {
    expect(
      hasPlainTextBody(
        Buffer.from(alternative("--a\r\nContent-Type: text/plain\r\n\r\nHi\r\n--a\r\nContent-Type: text/html\r\n\r\n<p>Hi</p>\r\n")),
      ),
    ).toBe(true);
    expect(hasPlainTextBody(Buffer.from("Subject: x\r\n\r\nHi\r\n"))).toBe(true);
  });
  it("finds none in an html-only message, nor in a text file attached to it", () => {
    expect(hasPlainTextBody(Buffer.from("Content-Type: text/html\r\n\r\n<p>Hi</p>\r\n"))).toBe(false);
    expect(
      hasPlainTextBody(
        Buffer.from(
          alternative(
            "--a\r\nContent-Type: text/html\r\n\r\n<p>Hi</p>\r\n--a\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename=a.txt\r\n\r\nfile\r\n",
          ),
        ),
      ),
    ).toBe(false);
  });
});
