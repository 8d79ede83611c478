import { randomUUID } from "node:crypto";
import { simpleParser } from "mailparser";
import nodemailer from "nodemailer";
import type { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsResponder, type DnsResponder, type SmtpSink } from "@tidings/testkit";
import { publishRecords, waitForDomain } from "../support/domainRecords.js";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";
import type { TestServer } from "../support/testServer.js";
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from "../support/webhookReceiver.js";
import { uuid, wireTimestamp } from "../support/wire.js";

/**
 * Received mail and feedback-loop complaints (#8), through real SMTP into the inbound listener, read back
 * through the resend SDK, with the webhooks checked by the SDK's own `webhooks.verify`. The receiving
 * domain is verified against a real DNS server on loopback, as its owner would publish it.
 */
let dns: DnsResponder;
let mailing: MailingServer;
let sink: SmtpSink;
let receiver: WebhookReceiver;
let server: TestServer;
let resend: Resend;
let inbound: nodemailer.Transporter;
let domain: string;
let signingSecret: string;
const MAX_BYTES = 256 * 1024;
const pixel = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

beforeAll(async () => {
  [dns, receiver] = await Promise.all([startDnsResponder({}), startWebhookReceiver()]);
  mailing = await startMailingServer({
    INBOUND_SMTP_PORT: "0",
    INBOUND_MAX_MESSAGE_BYTES: String(MAX_BYTES),
    DNS_SERVERS: dns.address,
    MAIL_HOST: "mx.tidings.test",
    INBOUND_HOST: "inbound.tidings.test",
    WEBHOOK_ALLOW_PRIVATE: "true",
  });
  ({ sink, server, resend } = mailing);
  inbound = nodemailer.createTransport({ host: "127.0.0.1", port: server.serving.inboundSmtp!.port, secure: false, ignoreTLS: true });

  domain = `rcv-${randomUUID().slice(0, 8)}.example.test`;
  const { data: created, error } = await resend.domains.create({
    name: domain,
    capabilities: { sending: "enabled", receiving: "enabled" },
  });
  if (error) throw new Error(`domain: ${error.message}`);
  publishRecords(dns, created!.records);
  await resend.domains.verify(created!.id);
  await waitForDomain(resend, created!.id, (d) => d.status === "verified");
  const hook = await resend.webhooks.create({
    endpoint: `${receiver.url}/inbound`,
    events: ["email.received", "email.complained", "email.bounced", "email.suppressed"],
  });
  signingSecret = hook.data!.signing_secret;
});
afterAll(async () => {
  inbound?.close();
  await mailing?.stop();
  await Promise.all([receiver?.close(), dns?.close()]);
});

const verified = (received: ReceivedWebhook) =>
  resend.webhooks.verify({
    payload: received.body,
    headers: {
      id: received.headers["svix-id"]!,
      timestamp: received.headers["svix-timestamp"]!,
      signature: received.headers["svix-signature"]!,
    },
    webhookSecret: signingSecret,
  }) as unknown as { type: string; created_at: string; data: Record<string, unknown> };

async function webhookFor(type: string, emailId: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = receiver
      .at("/inbound")
      .map(verified)
      .filter((p) => p.type === type && p.data.email_id === emailId);
    if (found.length > 0) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} webhook for ${emailId}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function receivedWith(messageId: string, count = 1, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data } = await resend.emails.receiving.list();
    const found = data?.data.filter((e) => e.message_id === messageId) ?? [];
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`${found.length} received emails with ${messageId}, expected ${count}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How many events of `type` a stream holds: a duplicate shows here even where a read model's upsert hides it. */
const eventsOf = async (streamId: string, type: string) =>
  (await server.serving.runtime.store.readStream(streamId)).filter((e) => e.type === type).length;

const smtpError = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { responseCode?: number; response?: string }) => error,
  );

describe("receiving mail (reference §6.3)", () => {
  it("takes a message for a verified receiving domain: listed, parsed, raw and attachments downloadable without a key, email.received signed", async () => {
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
  });

  it("records a message once when the sending server sends it again (a lost 250)", async () => {
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
    const [forwarded] = await sink
      .waitFor((all) => all.some((m) => m.envelope.to.includes("team@example.test")))
      .then((all) => all.filter((m) => m.envelope.to.includes("team@example.test")));
    const parsed = await simpleParser(forwarded!.raw);
    expect(parsed.subject).toBe("Pass it on");
    expect(parsed.html).toContain("For the team");
  });

  it("is no relay: refuses a domain nobody receives for at RCPT, and a message over the size limit", async () => {
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

/** An ARF report (RFC 5965) about `original`, as a mailbox provider's feedback loop sends it. */
function feedbackReport(original: Buffer, recipient: string | null): string {
  const headersOnly = original.toString("latin1").split(/\r?\n\r?\n/)[0]!;
  return [
    "From: Feedback Loop <fbl@provider.test>",
    "To: fbl@mx.tidings.test",
    "Subject: Complaint",
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=feedback-report; boundary="arf"',
    "",
    "--arf",
    "Content-Type: text/plain",
    "",
    "A recipient reported this message as spam.",
    "--arf",
    "Content-Type: message/feedback-report",
    "",
    "Feedback-Type: abuse",
    "User-Agent: ProviderFBL/1.0",
    "Version: 1",
    ...(recipient ? [`Original-Rcpt-To: ${recipient}`] : []),
    "",
    "--arf",
    "Content-Type: text/rfc822-headers",
    "",
    headersOnly,
    "",
    "--arf--",
    "",
  ].join("\r\n");
}

/** A relay's delivery-status report (RFC 3464): `recipient` failed with `status` after the relay took the message. */
function deliveryStatusReport(original: Buffer, recipient: string, status: string, diagnostic: string): string {
  return [
    "From: MAILER-DAEMON@relay.test",
    "Subject: Undelivered Mail Returned to Sender",
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=delivery-status; boundary="dsn"',
    "",
    "--dsn",
    "Content-Type: text/plain",
    "",
    "Your message could not be delivered.",
    "--dsn",
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; relay.test",
    "",
    `Final-Recipient: rfc822; ${recipient}`,
    "Action: failed",
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${diagnostic}`,
    "",
    "--dsn",
    "Content-Type: text/rfc822-headers",
    "",
    original.toString("latin1").split(/\r?\n\r?\n/)[0]!,
    "",
    "--dsn--",
    "",
  ].join("\r\n");
}

describe("asynchronous bounces", () => {
  it("records a relay's later bounce, sent back to the email's bounce address: bounced, email.bounced, suppressed", async () => {
    const to = `erin-${randomUUID().slice(0, 6)}@example.test`;
    const { data: sent } = await resend.emails.send({ from: `Acme <news@${domain}>`, to, subject: "Relayed", html: "<p>Relayed</p>" });
    const [relayed] = await sink
      .waitFor((all) => all.some((m) => m.envelope.to.includes(to)))
      .then((all) => all.filter((m) => m.envelope.to.includes(to)));
    expect(relayed!.envelope.from).toMatch(new RegExp(`^bounce\\+${sent!.id}\\.[0-9a-f]{16}@send\\.`));
    await expect.poll(async () => (await resend.emails.get(sent!.id)).data?.last_event).toBe("delivered");

    const raw = deliveryStatusReport(relayed!.raw, to, "5.1.1", "550 5.1.1 user unknown");
    // An address we did not make names no email, though it names the id the Message-ID shows everyone.
    const forged = `bounce+${sent!.id}.0123456789abcdef@send.${domain}`;
    expect((await inbound.sendMail({ envelope: { from: "", to: [forged] }, raw })).response).toMatch(/^250 /);
    expect(await eventsOf(`email-${sent!.id}`, "EmailBounced")).toBe(0);

    const dsn = { envelope: { from: "", to: [relayed!.envelope.from] }, raw };
    expect((await inbound.sendMail(dsn)).response).toMatch(/^250 /);
    await inbound.sendMail(dsn);
    expect(await eventsOf(`email-${sent!.id}`, "EmailBounced")).toBe(1);
    const [bounced] = await webhookFor("email.bounced", sent!.id);
    expect(bounced!.data).toMatchObject({ email_id: sent!.id, bounce: { type: "Permanent", message: "550 5.1.1 user unknown" } });
    expect((await resend.emails.get(sent!.id)).data?.last_event).toBe("bounced");
    const suppressions = await fetch(`${server.url}/suppressions?origin=bounce`, {
      headers: { authorization: `Bearer ${server.token}` },
    }).then((r) => r.json() as Promise<{ data: unknown[] }>);
    expect(suppressions.data).toContainEqual(expect.objectContaining({ email: to, origin: "bounce", source_id: sent!.id }));
  });

  it("takes only reports at a return path", async () => {
    const plain = await smtpError(
      inbound.sendMail({ from: "x@elsewhere.test", to: `someone@send.${domain}`, subject: "Hello", text: "Not a report" }),
    );
    expect(plain).toMatchObject({ responseCode: 550 });
  });
});

describe("feedback-loop complaints", () => {
  it("records a report about a sent email: email.complained, last_event complained, the recipient suppressed from then on", async () => {
    const to = `dana-${randomUUID().slice(0, 6)}@example.test`;
    const { data: sent } = await resend.emails.send({ from: "Acme <hello@acme.test>", to, subject: "Our news", html: "<p>News</p>" });
    const [delivered] = await sink
      .waitFor((all) => all.some((m) => m.envelope.to.includes(to)))
      .then((all) => all.filter((m) => m.envelope.to.includes(to)));
    expect(delivered!.messageId).toContain(sent!.id);

    const arf = feedbackReport(delivered!.raw, to);
    // At a team's receiving address a report is mail like any other: its sender cannot touch the team's emails.
    await inbound.sendMail({ envelope: { from: "", to: [`abuse@${domain}`] }, raw: arf });
    expect(await eventsOf(`email-${sent!.id}`, "EmailComplained")).toBe(0);
    await expect
      .poll(async () =>
        (await resend.emails.receiving.list()).data?.data.some(
          (e) => e.subject === "Complaint" && e.received_for.includes(`abuse@${domain}`),
        ),
      )
      .toBe(true);

    const report = { envelope: { from: "", to: ["fbl@mx.tidings.test"] }, raw: arf };
    await inbound.sendMail(report);
    await inbound.sendMail(report);
    expect(await eventsOf(`email-${sent!.id}`, "EmailComplained")).toBe(1);
    const complaints = await webhookFor("email.complained", sent!.id);
    expect(complaints[0]).toEqual({
      type: "email.complained",
      created_at: expect.any(String),
      data: expect.objectContaining({ email_id: sent!.id, to: [to], subject: "Our news", message_id: delivered!.messageId }),
    });
    expect((await resend.emails.get(sent!.id)).data?.last_event).toBe("complained");
    const suppressions = await fetch(`${server.url}/suppressions?origin=complaint`, {
      headers: { authorization: `Bearer ${server.token}` },
    }).then((r) => r.json() as Promise<{ data: unknown[] }>);
    expect(suppressions.data).toContainEqual(expect.objectContaining({ email: to, origin: "complaint", source_id: sent!.id }));

    const { data: next } = await resend.emails.send({ from: "Acme <hello@acme.test>", to, subject: "More news", html: "<p>More</p>" });
    expect((await resend.emails.get(next!.id)).data?.last_event).toBe("suppressed");
    const [suppressed] = await webhookFor("email.suppressed", next!.id);
    expect(suppressed!.data.suppressed).toEqual({
      message: `On the team's suppression list: ${to}.`,
      type: "OnAccountSuppressionList",
      reason: "previous_complaint",
    });
  });

  it("takes only reports at the feedback address, and accepts one naming no email of ours without recording it", async () => {
    const plain = await smtpError(
      inbound.sendMail({ from: "x@elsewhere.test", to: "fbl@mx.tidings.test", subject: "Hello", text: "Not a report" }),
    );
    expect(plain).toMatchObject({
      responseCode: 550,
      response: expect.stringContaining("feedback-loop (ARF) and delivery-status reports only"),
    });
    const foreign = Buffer.from(`Message-ID: <${randomUUID()}@elsewhere.test>\r\nTo: x@example.test\r\n\r\nbody`);
    const accepted = await inbound.sendMail({ envelope: { from: "", to: ["fbl@mx.tidings.test"] }, raw: feedbackReport(foreign, null) });
    expect(accepted.response).toMatch(/^250 /);
  });
});
