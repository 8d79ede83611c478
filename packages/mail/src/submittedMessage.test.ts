import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { submittedMessage } from "./submittedMessage.js";

const raw = Buffer.from(
  [
    "From: App <app@example.com>",
    "To: ada@example.org",
    "Bcc: hidden@example.net,",
    " other@example.net",
    "Message-ID: <client-1@app.example.com>",
    "Subject: Hello",
    "X-Custom: kept",
    "Content-Type: text/plain",
    "",
    "Body line",
    "Bcc: in the body stays",
    "",
  ].join("\r\n"),
);
const input = { raw, messageId: "<e1@mail.example.com>", date: new Date("2026-01-02T03:04:05Z") };

describe("submittedMessage", () => {
  it("replaces the Message-ID, removes every line of the Bcc field, adds a Date, and keeps the rest as written", async () => {
    const out = (await submittedMessage(input)).toString();
    expect(out).toBe(
      [
        "Message-ID: <e1@mail.example.com>",
        "Date: Fri, 02 Jan 2026 03:04:05 +0000",
        "From: App <app@example.com>",
        "To: ada@example.org",
        "Subject: Hello",
        "X-Custom: kept",
        "Content-Type: text/plain",
        "",
        "Body line",
        "Bcc: in the body stays",
        "",
      ].join("\r\n"),
    );
  });

  it("keeps the client's Date", async () => {
    const dated = Buffer.from("Date: Mon, 05 Jan 2026 10:00:00 +0100\r\nSubject: x\r\n\r\nhi\r\n");
    const out = (await submittedMessage({ ...input, raw: dated })).toString();
    expect(out.match(/^Date:/gm)).toHaveLength(1);
    expect(out).toContain("Date: Mon, 05 Jan 2026 10:00:00 +0100");
  });

  it("signs with the domain's key, the same bytes every time", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const dkim = {
      domainName: "example.com",
      keySelector: "tidings",
      privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    };
    const first = await submittedMessage({ ...input, dkim });
    expect(first.toString()).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=example.com;/);
    expect((await submittedMessage({ ...input, dkim })).equals(first)).toBe(true);
  });
});
