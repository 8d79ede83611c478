import { generateKeyPairSync } from "node:crypto";
import { simpleParser } from "mailparser";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { describe, expect, it } from "vitest";
import { composeMessage, messageIdFor, type MessageInput } from "./composeMessage.js";
import { htmlToText } from "./htmlToText.js";

const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

const anEmail = (overrides: Partial<MessageInput> = {}): MessageInput => ({
  from: "Acme <hello@acme.test>",
  to: ["ann@example.test"],
  cc: ["bob@example.test"],
  bcc: ["secret@example.test"],
  replyTo: ["support@acme.test"],
  subject: "Your receipt — № 42",
  html: '<p>Hello <b>Ann</b>, see <a href="https://acme.test/r/42">your receipt</a>.</p><img src="cid:logo">',
  text: "Hello Ann, see your receipt: https://acme.test/r/42",
  headers: { "X-Entity-Ref-ID": "abc-123" },
  attachments: [
    { filename: "logo.png", contentType: "image/png", content: png, contentId: "logo" },
    { filename: "receipt.txt", contentType: "text/plain", content: Buffer.from("total: 42") },
  ],
  messageId: messageIdFor("0190e7c6-3f7a-7b3e-9a51-1f2a3b4c5d6e", "acme.test"),
  date: new Date("2026-11-23T03:00:00Z"),
  listUnsubscribe: { url: "https://acme.test/u/abc", mailto: "unsubscribe@acme.test" },
  ...overrides,
});

describe("composeMessage", () => {
  it("writes the headers, parts and inline attachment a receiver parses back", async () => {
    const parsed = await simpleParser(await composeMessage(anEmail()));

    expect(parsed.messageId).toBe("<0190e7c6-3f7a-7b3e-9a51-1f2a3b4c5d6e@acme.test>");
    expect(parsed.from?.text).toBe('"Acme" <hello@acme.test>');
    expect(parsed.subject).toBe("Your receipt — № 42");
    expect(parsed.date?.toISOString()).toBe("2026-11-23T03:00:00.000Z");
    expect(parsed.headers.get("x-entity-ref-id")).toBe("abc-123");
    expect(parsed.replyTo?.text).toBe("support@acme.test");
    expect(parsed.html).toContain("<b>Ann</b>");
    expect(parsed.text).toBe("Hello Ann, see your receipt: https://acme.test/r/42");

    const [logo, receipt] = parsed.attachments;
    expect(logo).toMatchObject({
      filename: "logo.png",
      contentType: "image/png",
      contentDisposition: "inline",
      cid: "logo",
      related: true,
    });
    expect(logo!.content.equals(png)).toBe(true);
    expect(receipt).toMatchObject({ filename: "receipt.txt", contentDisposition: "attachment" });
    expect(receipt!.content.toString()).toBe("total: 42");
  });

  it("keeps bcc recipients out of the message", async () => {
    const raw = await composeMessage(anEmail());
    const parsed = await simpleParser(raw);
    expect(parsed.headers.has("bcc")).toBe(false);
    expect(raw.toString()).not.toContain("secret@example.test");
    expect([parsed.to, parsed.cc].map((a) => (Array.isArray(a) ? a : [a])[0]?.text)).toEqual(["ann@example.test", "bob@example.test"]);
  });

  it("offers one-click List-Unsubscribe with both the https URL and the mailto", async () => {
    const raw = (await composeMessage(anEmail())).toString();
    expect(raw).toMatch(/^List-Unsubscribe: <https:\/\/acme\.test\/u\/abc>,\s+<mailto:unsubscribe@acme\.test>\r$/m);
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
  });

  it("writes no List-Unsubscribe-Post without an https URL, and no List-Unsubscribe at all without targets", async () => {
    const mailtoOnly = (await composeMessage(anEmail({ listUnsubscribe: { mailto: "mailto:u@acme.test" } }))).toString();
    expect(mailtoOnly).toMatch(/^List-Unsubscribe: <mailto:u@acme\.test>\r$/m);
    expect(mailtoOnly).not.toContain("List-Unsubscribe-Post");
    const none = (await composeMessage(anEmail({ listUnsubscribe: undefined }))).toString();
    expect(none).not.toContain("List-Unsubscribe");
  });

  it("composes the same bytes for the same email, so a retry sends what the first try sent", async () => {
    const first = await composeMessage(anEmail());
    expect((await composeMessage(anEmail())).equals(first)).toBe(true);
    const other = await composeMessage(anEmail({ messageId: messageIdFor("another", "acme.test") }));
    expect(other.equals(first)).toBe(false);
  });

  it("sends an html-only email with the text a receiver would read", async () => {
    const html =
      '<h1>Welcome</h1><p>Read <a href="https://acme.test/docs">the docs</a>.</p><img src="https://acme.test/pixel.png" alt="x">';
    const parsed = await simpleParser(await composeMessage(anEmail({ html, text: htmlToText(html), attachments: [] })));
    expect(parsed.text?.trim()).toBe("Welcome\n\nRead the docs [https://acme.test/docs].");
  });

  it("DKIM-signs so that a verifier holding the published key passes it, twice over the same bytes", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const dkim = {
      domainName: "acme.test",
      keySelector: "tidings",
      privateKey: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    };
    const published = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    const resolver = async (name: string, type: string) => {
      if (name === "tidings._domainkey.acme.test" && type === "TXT") return [[`v=DKIM1; k=rsa; p=${published}`]];
      throw Object.assign(new Error(`no ${type} for ${name}`), { code: "ENOTFOUND" });
    };

    const signed = await composeMessage(anEmail({ dkim }));
    expect((await composeMessage(anEmail({ dkim }))).equals(signed)).toBe(true);
    const verified = await dkimVerify(signed, { resolver });
    expect(verified.results).toHaveLength(1);
    expect(verified.results[0]).toMatchObject({ signingDomain: "acme.test", selector: "tidings", status: { result: "pass" } });

    const tampered = Buffer.from(
      signed
        .toString()
        .replace("total: 42", "total: 99")
        .replace(/dG90YWw6IDQy/, "dG90YWw6IDk5"),
    );
    expect(tampered.equals(signed)).toBe(false);
    // mailauth reports a body hash mismatch as `neutral` with this comment (RFC 6376 §6.3: PERMFAIL).
    expect((await dkimVerify(tampered, { resolver })).results[0]?.status).toMatchObject({
      result: "neutral",
      comment: "body hash did not verify",
    });
  });
});
