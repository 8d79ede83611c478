import { randomUUID } from "node:crypto";
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { inboundEmailStream } from "@tidings/domain";
import { settledWrites } from "@tidings/postgres";
import { inboundMailSuite, MAX_BYTES, smtpError } from "../support/inboundMail.js";
import { uuid, wireTimestamp } from "../support/wire.js";

/**
 * Received mail (#8), through real SMTP into the inbound listener, read back through the resend SDK, with
 * the webhooks checked by the SDK's own `webhooks.verify`.
 */
const mail = inboundMailSuite();
const pixel = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

describe("receiving mail (docs/wire-compatibility.md §6.3)", () => {
  it("takes a message for a verified receiving domain: listed, parsed, raw and attachments downloadable without a key, email.received signed", async () => {
    const { resend, inbound, domain, webhookFor, receivedWith } = mail;
    const messageId = `<${randomUUID()}@elsewhere.test>`;
    const info = await inbound.sendMail({
      envelope: { from: "ann@elsewhere.test", to: [`support@${domain}`, `sales@${domain}`] },
      from: "Ann Example <ann@elsewhere.test>",
      to: `Support <support@${domain}>`,
      cc: "cy@elsewhere.test",
      replyTo: "ann+reply@elsewhere.test",
      subject: "Invoice question",
      messageId,
      headers: { "X-Ticket": "T-42" },
      text: "Where is my invoice?",
      html: '<p>Where is my <b>invoice</b>?</p><img src="cid:logo@ann">',
      attachments: [
        { filename: "invoice.pdf", content: Buffer.from("%PDF-1.4 fake"), contentType: "application/pdf" },
        { filename: "logo.png", content: pixel, contentType: "image/png", cid: "logo@ann" },
      ],
    });
    expect(info.response).toMatch(/^250 /);

    const [listed] = await receivedWith(messageId);
    expect(listed).toEqual({
      id: expect.stringMatching(uuid),
      to: [`Support <support@${domain}>`],
      from: "Ann Example <ann@elsewhere.test>",
      created_at: expect.stringMatching(wireTimestamp),
      subject: "Invoice question",
      cc: ["cy@elsewhere.test"],
      bcc: null,
      reply_to: ["ann+reply@elsewhere.test"],
      received_for: [`support@${domain}`, `sales@${domain}`],
      message_id: messageId,
      // In the message's order: nodemailer puts the inline image beside the html, before the attachment.
      attachments: [
        {
          id: expect.stringMatching(uuid),
          filename: "logo.png",
          size: pixel.length,
          content_type: "image/png",
          content_id: "logo@ann",
          content_disposition: "inline",
        },
        {
          id: expect.stringMatching(uuid),
          filename: "invoice.pdf",
          size: 13,
          content_type: "application/pdf",
          content_id: null,
          content_disposition: "attachment",
        },
      ],
    });
    const id = listed!.id;

    const { data: email } = await resend.emails.receiving.get(id);
    expect(email).toMatchObject({ object: "email", id, subject: "Invoice question", text: "Where is my invoice?", message_id: messageId });
    expect(email!.html).toContain(`src="data:image/png;base64,${pixel.toString("base64")}"`);
    expect(email!.headers).toMatchObject({ "x-ticket": "T-42", subject: "Invoice question" });
    const { data: withCid } = await resend.emails.receiving.get(id, { html_format: "cid" });
    expect(withCid!.html).toContain('src="cid:logo@ann"');

    const raw = await fetch(email!.raw!.download_url);
    expect(raw.status).toBe(200);
    expect(raw.headers.get("content-type")).toBe("message/rfc822");
    const reparsed = await simpleParser(Buffer.from(await raw.arrayBuffer()));
    expect(reparsed.messageId).toBe(messageId);
    expect((await fetch(email!.raw!.download_url.replace(/signature=[^&]+/, "signature=forged"))).status).toBe(403);

    const { data: attachments } = await resend.emails.receiving.attachments.list({ emailId: id });
    const pdf = attachments!.data.find((a) => a.filename === "invoice.pdf")!;
    const download = await fetch(pdf.download_url);
    expect(download.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''invoice.pdf");
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await download.arrayBuffer()).toString()).toBe("%PDF-1.4 fake");
    const { data: one } = await resend.emails.receiving.attachments.get({ emailId: id, id: pdf.id });
    expect(one).toMatchObject({ object: "attachment", id: pdf.id, filename: "invoice.pdf", content_type: "application/pdf" });

    const [payload] = await webhookFor("email.received", id);
    expect(payload).toEqual({
      type: "email.received",
      created_at: expect.any(String),
      data: {
        email_id: id,
        created_at: payload!.created_at,
        from: "Ann Example <ann@elsewhere.test>",
        to: [`Support <support@${domain}>`],
        cc: ["cy@elsewhere.test"],
        bcc: [],
        received_for: [`support@${domain}`, `sales@${domain}`],
        message_id: messageId,
        subject: "Invoice question",
        attachments: [
          {
            id: listed!.attachments[0]!.id,
            filename: "logo.png",
            content_type: "image/png",
            content_disposition: "inline",
            content_id: "logo@ann",
          },
          {
            id: listed!.attachments[1]!.id,
            filename: "invoice.pdf",
            content_type: "application/pdf",
            content_disposition: "attachment",
            content_id: null,
          },
        ],
      },
    });

    // The received message starts its chain: its id stands where a request id would, and its webhook follows it.
    const store = mail.server.serving.runtime.store;
    const [received] = await store.readStream(inboundEmailStream(id));
    expect(received!.metadata).toMatchObject({ actor: "smtp", correlationId: id, causationId: id, occurredAt: expect.any(String) });
    // $all shows an event once every transaction begun before it has ended: on a shared PostgreSQL the
    // delivery whose webhook already came can be out of its sight for a while.
    await settledWrites(mail.server.serving.runtime.database, 60_000);
    const deliveries = await store.readAll({ filter: { streamCategory: ["webhookdelivery"] } });
    const forReceived = deliveries.find((e) => (e.data as { eventId?: string }).eventId === received!.id)!;
    expect(forReceived.metadata).toMatchObject({ actor: "saga:webhooks", correlationId: id, causationId: received!.id });
  });

  it("records a message once when the sending server sends it again (a lost 250)", async () => {
    const { inbound, domain, receivedWith, eventsOf } = mail;
    const messageId = `<${randomUUID()}@elsewhere.test>`;
    const message = {
      envelope: { from: "bo@elsewhere.test", to: [`help@${domain}`] },
      from: "bo@elsewhere.test",
      to: `help@${domain}`,
      subject: "Twice",
      messageId,
      text: "Once.",
    };
    const first = await inbound.sendMail(message);
    const again = await inbound.sendMail(message);
    expect(again.response).toBe(first.response);
    // A later message is projected after the retry, so once it shows, the retry would have too.
    const later = `<${randomUUID()}@elsewhere.test>`;
    await inbound.sendMail({ ...message, messageId: later, subject: "Later" });
    await receivedWith(later);
    const [only, ...more] = await receivedWith(messageId);
    expect(more).toEqual([]);
    expect(await eventsOf(`inbound-${only!.id}`, "InboundEmailReceived")).toBe(1);
    // The same message in another transaction, to another recipient (a Bcc sent apart), is received for them.
    await inbound.sendMail({ ...message, envelope: { from: "bo@elsewhere.test", to: [`hidden@${domain}`] } });
    const both = await receivedWith(messageId, 2);
    expect(both.map((e) => e.received_for).sort()).toEqual([[`help@${domain}`], [`hidden@${domain}`]]);
  });

  it("forwards a received email through the SDK, which fetches the raw message without a key", async () => {
    const { resend, inbound, domain, receivedWith, deliveredTo } = mail;
    const messageId = `<${randomUUID()}@elsewhere.test>`;
    await inbound.sendMail({
      from: "cy@elsewhere.test",
      to: `hello@${domain}`,
      subject: "Pass it on",
      messageId,
      html: "<p>For the team</p>",
    });
    const [received] = await receivedWith(messageId);
    // Html only: no text the sender never wrote.
    expect((await resend.emails.receiving.get(received!.id)).data).toMatchObject({
      html: expect.stringContaining("<p>For the team</p>"),
      text: null,
    });
    const { data, error } = await resend.emails.receiving.forward({
      emailId: received!.id,
      to: "team@example.test",
      from: `Support <support@${domain}>`,
    });
    expect(error).toBeNull();
    expect(data!.id).toMatch(uuid);
    const [forwarded] = await deliveredTo("team@example.test");
    const parsed = await simpleParser(forwarded!.raw);
    expect(parsed.subject).toBe("Pass it on");
    expect(parsed.html).toContain("For the team");
  });

  it("is no relay: refuses a domain nobody receives for at RCPT, and a message over the size limit", async () => {
    const { resend, inbound, domain } = mail;
    const stranger = await smtpError(inbound.sendMail({ from: "x@elsewhere.test", to: "someone@nowhere.test", subject: "Hi", text: "Hi" }));
    expect(stranger).toMatchObject({ responseCode: 550, response: expect.stringContaining("does not receive mail for nowhere.test") });
    // Receiving on, MX not yet verified: nothing shows the name's owner pointed it here.
    const unverified = `pending-${randomUUID().slice(0, 8)}.example.test`;
    expect(
      (await resend.domains.create({ name: unverified, capabilities: { sending: "disabled", receiving: "enabled" } })).error,
    ).toBeNull();
    const early = await smtpError(inbound.sendMail({ from: "x@elsewhere.test", to: `someone@${unverified}`, subject: "Hi", text: "Hi" }));
    expect(early).toMatchObject({ responseCode: 550 });
    const big = await smtpError(
      inbound.sendMail({ from: "x@elsewhere.test", to: `big@${domain}`, subject: "Big", text: "x".repeat(MAX_BYTES + 1024) }),
    );
    expect(big).toMatchObject({ responseCode: 552 });
  });
});
