import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { Resolver } from "node:dns/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { randomUUID } from "node:crypto";
import { simpleParser } from "mailparser";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import nodemailer from "nodemailer";
import type { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsResponder, testCertificate, type DnsResponder, type ReceivedMessage } from "@tidings/testkit";
import { publishRecords, waitForDomain } from "../support/domainRecords.js";
import { smtpError } from "../support/inboundMail.js";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";
import { verifiedPayload, type WebhookPayload } from "../support/signedWebhooks.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver.js";

/**
 * SMTP submission end to end: mail from software that speaks SMTP, sent through the submission port with
 * STARTTLS and an API key as the password, by nodemailer and by Debian's swaks, two clients written apart.
 * Each message becomes an email the SDK reads, with its attachments; it reaches the sink DKIM-signed with
 * the domain's published key, and its webhooks fire as for an email sent over HTTP.
 */
const run = promisify(execFile);
let dns: DnsResponder;
let receiver: WebhookReceiver;
let mailing: MailingServer;
let resend: Resend;
let domain: string;
let signingSecret: string;
let port: number;

beforeAll(async () => {
  const certificate = await testCertificate();
  const dir = mkdtempSync(join(tmpdir(), "submission-e2e-"));
  writeFileSync(join(dir, "cert.pem"), certificate.cert);
  writeFileSync(join(dir, "key.pem"), certificate.key);
  [dns, receiver] = await Promise.all([startDnsResponder({}), startWebhookReceiver()]);
  mailing = await startMailingServer({
    SUBMISSION_SMTP_PORT: "0",
    SUBMISSION_TLS_CERT: join(dir, "cert.pem"),
    SUBMISSION_TLS_KEY: join(dir, "key.pem"),
    TIDINGS_ALLOW_UNVERIFIED_FROM: "false",
    DNS_SERVERS: dns.address,
    MAIL_HOST: "mx.tidings.test",
    WEBHOOK_ALLOW_PRIVATE: "true",
  });
  resend = mailing.resend;
  port = mailing.server.serving.submissionSmtp!.port;
  domain = `smtp-${randomUUID().slice(0, 8)}.example.test`;
  const { data: created, error } = await resend.domains.create({ name: domain });
  if (error) throw new Error(`domain: ${error.message}`);
  publishRecords(dns, created!.records);
  await resend.domains.verify(created!.id);
  await waitForDomain(resend, created!.id, (d) => d.status === "verified");
  const hook = await resend.webhooks.create({ endpoint: `${receiver.url}/mail`, events: ["email.sent", "email.delivered"] });
  signingSecret = hook.data!.signing_secret;
});
afterAll(async () => {
  await mailing?.stop();
  await Promise.all([receiver?.close(), dns?.close()]);
});

const client = (password: string) =>
  nodemailer.createTransport({
    host: "127.0.0.1",
    port,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: "resend", pass: password },
  });
const queuedId = (response: string) => /Queued as ([0-9a-f-]{36})/.exec(response)![1]!;

async function webhooksFor(emailId: string, types: string[]): Promise<WebhookPayload[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = receiver
      .at("/mail")
      .map((r) => verifiedPayload(resend, r, signingSecret))
      .filter((p) => p.data.email_id === emailId);
    if (types.every((type) => found.some((p) => p.type === type))) return found;
    if (Date.now() > deadline) throw new Error(`webhooks for ${emailId}: ${found.map((p) => p.type).join(", ")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ours = (emailId: string) => (m: ReceivedMessage) => m.messageId?.startsWith(`<${emailId}@`) ?? false;
const deliveredMessage = async (emailId: string) =>
  (await mailing.sink.waitFor((all) => all.some(ours(emailId)), 60_000)).find(ours(emailId))!;

async function expectSignedByDomain(raw: Buffer) {
  const loopback = new Resolver();
  loopback.setServers([dns.address]);
  const verified = await dkimVerify(raw, { resolver: (name: string, type: string) => loopback.resolve(name, type as "TXT") });
  expect(verified.results).toHaveLength(1);
  expect(verified.results[0]).toMatchObject({ signingDomain: domain, selector: "tidings", status: { result: "pass" } });
}

describe("SMTP submission", () => {
  it("takes nodemailer's message with attachments over STARTTLS; the SDK shows it, the sink gets it signed, its webhooks fire", async () => {
    const invoice = Buffer.from("%PDF-1.4 invoice 42\n");
    const info = await client(mailing.server.token).sendMail({
      from: `Shop <orders@${domain}>`,
      to: "ann@example.test",
      bcc: "audit@example.test",
      subject: "Your invoice",
      html: "<p>Your invoice is attached.</p>",
      headers: { "X-Order": "42", "X-Tags": "category=invoice" },
      attachments: [{ filename: "invoice.pdf", content: invoice, contentType: "application/pdf" }],
    });
    expect(info.response).toMatch(/^250 2\.0\.0 Queued as /);
    const id = queuedId(info.response);

    const { data: email } = await resend.emails.get(id);
    expect(email).toMatchObject({
      id,
      from: `Shop <orders@${domain}>`,
      to: ["ann@example.test"],
      bcc: ["audit@example.test"],
      subject: "Your invoice",
      tags: [{ name: "category", value: "invoice" }],
    });
    const listed = await resend.emails.attachments.list({ emailId: id });
    expect(listed.data!.data).toEqual([
      expect.objectContaining({ filename: "invoice.pdf", content_type: "application/pdf", size: invoice.length }),
    ]);

    const delivered = await deliveredMessage(id);
    expect(delivered.envelope.to.sort()).toEqual(["ann@example.test", "audit@example.test"]);
    await expectSignedByDomain(delivered.raw);
    const parsed = await simpleParser(delivered.raw);
    expect(parsed.headers.get("x-order")).toBe("42");
    expect(parsed.headers.has("bcc")).toBe(false);
    expect(parsed.attachments.map((a) => [a.filename, a.content.equals(invoice)])).toEqual([["invoice.pdf", true]]);

    const hooks = await webhooksFor(id, ["email.sent", "email.delivered"]);
    expect(hooks.find((h) => h.type === "email.delivered")!.data).toMatchObject({ email_id: id, subject: "Your invoice" });
  });

  it("takes swaks's message with an attachment over STARTTLS and AUTH LOGIN, just as nodemailer's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "swaks-"));
    writeFileSync(join(dir, "notes.txt"), "plain notes\n");
    const { stdout } = await run("swaks", [
      ...["--server", "127.0.0.1", "--port", String(port), "--tls", "--auth", "LOGIN"],
      ...["--auth-user", "resend", "--auth-password", mailing.server.token],
      ...["--from", `alerts@${domain}`, "--to", "bo@example.test"],
      ...["--header", `From: Alerts <alerts@${domain}>`, "--header", "Subject: Disk almost full"],
      ...["--body", "The disk is 95% full.", "--attach", `@${join(dir, "notes.txt")}`],
    ]);
    const id = queuedId(stdout);
    const { data: email } = await resend.emails.get(id);
    expect(email).toMatchObject({ id, from: `Alerts <alerts@${domain}>`, to: ["bo@example.test"], subject: "Disk almost full" });
    const listed = await resend.emails.attachments.list({ emailId: id });
    expect(listed.data!.data.map((a) => a.filename)).toEqual(["notes.txt"]);
    await expectSignedByDomain((await deliveredMessage(id)).raw);
    await webhooksFor(id, ["email.sent", "email.delivered"]);
  });

  it("answers a wrong key 535, to nodemailer and to swaks", async () => {
    const refused = await smtpError(
      client("re_wrong_key_0123456789abcdef0123").sendMail({ from: `a@${domain}`, to: "x@example.test", text: "x" }),
    );
    expect(refused).toMatchObject({ responseCode: 535 });
    const swaks = await run("swaks", [
      ...["--server", "127.0.0.1", "--port", String(port), "--tls", "--auth", "PLAIN"],
      ...["--auth-user", "resend", "--auth-password", "re_wrong", "--from", `a@${domain}`, "--to", "x@example.test"],
    ]).then(
      () => "",
      (error: { stdout: string }) => error.stdout,
    );
    expect(swaks).toMatch(/<~\* 535 5\.7\.8 /);
  });

  it("refuses a suppressed recipient with 550 and sends to nobody", async () => {
    await fetch(`${mailing.server.url}/suppressions`, {
      method: "POST",
      headers: { authorization: `Bearer ${mailing.server.token}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "unsubscribed@example.test" }),
    });
    const refused = await smtpError(
      client(mailing.server.token).sendMail({ from: `a@${domain}`, to: "unsubscribed@example.test", subject: "Hi", text: "Hi" }),
    );
    expect(refused).toMatchObject({ responseCode: 550, response: expect.stringMatching(/suppression list/) });
    expect(mailing.sink.received.filter((m) => m.envelope.to.includes("unsubscribed@example.test"))).toEqual([]);
  });

  it("records one email for a message sent again with the same Message-ID after a lost reply", async () => {
    const message = {
      from: `a@${domain}`,
      to: "cy@example.test",
      subject: `Retried ${randomUUID()}`,
      text: "Once only",
      messageId: `<${randomUUID()}@app.example.test>`,
    };
    const first = queuedId((await client(mailing.server.token).sendMail(message)).response);
    const again = queuedId((await client(mailing.server.token).sendMail(message)).response);
    expect(again).toBe(first);
    const { data } = await resend.emails.list();
    expect(data!.data.filter((e) => e.subject === message.subject)).toHaveLength(1);
    const queued = (await mailing.server.serving.runtime.store.readStream(`email-${first}`)).filter((e) => e.type === "EmailQueued");
    expect(queued).toHaveLength(1);
  });
});
