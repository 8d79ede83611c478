import { randomUUID } from "node:crypto";
import nodemailer from "nodemailer";
import type { Resend } from "resend";
import { afterAll, beforeAll } from "vitest";
import { startDnsResponder, type DnsResponder, type ReceivedMessage, type SmtpSink } from "@tidings/testkit";
import { publishRecords, waitForDomain } from "./domainRecords.js";
import { startMailingServer, type MailingServer } from "./mailingServer.js";
import { verifiedPayload, type WebhookPayload } from "./signedWebhooks.js";
import type { TestServer } from "./testServer.js";
import { startWebhookReceiver, type WebhookReceiver } from "./webhookReceiver.js";

/** The inbound listener's size limit in these tests. */
export const MAX_BYTES = 256 * 1024;

/** A server that receives mail for a verified domain, and what the inbound tests read back; set in `beforeAll`. */
export interface InboundMail {
  server: TestServer;
  resend: Resend;
  /** Where the server's outgoing mail lands. */
  sink: SmtpSink;
  /** An SMTP client of the inbound listener, as another mail server would be. */
  inbound: nodemailer.Transporter;
  /** The verified domain, receiving and sending. */
  domain: string;
  /** The verified webhook payloads of `type` for `emailId`, once there is one; throws after `timeoutMs`. */
  webhookFor(type: string, emailId: string, timeoutMs?: number): Promise<WebhookPayload[]>;
  /** The received emails with `messageId`, once there are `count`; throws after `timeoutMs`. */
  receivedWith(messageId: string, count?: number, timeoutMs?: number): Promise<ReceivedEmail[]>;
  /** How many events of `type` a stream holds: a duplicate shows here even where a read model's upsert hides it. */
  eventsOf(streamId: string, type: string): Promise<number>;
  /** The messages the sink received for `to`, once there is one. */
  deliveredTo(to: string): Promise<ReceivedMessage[]>;
  /** The team's suppressions of `origin`, read over HTTP. */
  suppressions(origin: "bounce" | "complaint"): Promise<unknown[]>;
}

type ReceivedEmail = NonNullable<Awaited<ReturnType<Resend["emails"]["receiving"]["list"]>>["data"]>["data"][number];

/** An SMTP refusal, or null when the promise resolves. */
export const smtpError = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { responseCode?: number; response?: string }) => error,
  );

/**
 * The inbound tests' deployment, for the file it is called in: a mailing server with an inbound listener,
 * its receiving domain verified against a real DNS server on loopback as its owner would publish it, and
 * a webhook for the received, complained, bounced and suppressed events on a loopback receiver.
 */
export function inboundMailSuite(): InboundMail {
  let dns: DnsResponder;
  let receiver: WebhookReceiver;
  let mailing: MailingServer;
  let signingSecret: string;
  const suite = {} as InboundMail;
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
    const { server, resend } = mailing;
    Object.assign(suite, { server, resend, sink: mailing.sink });
    suite.inbound = nodemailer.createTransport({
      host: "127.0.0.1",
      port: server.serving.inboundSmtp!.port,
      secure: false,
      ignoreTLS: true,
    });

    suite.domain = `rcv-${randomUUID().slice(0, 8)}.example.test`;
    const { data: created, error } = await resend.domains.create({
      name: suite.domain,
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
    suite.inbound?.close();
    await mailing?.stop();
    await Promise.all([receiver?.close(), dns?.close()]);
  });

  suite.webhookFor = async (type, emailId, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = receiver
        .at("/inbound")
        .map((r) => verifiedPayload(suite.resend, r, signingSecret))
        .filter((p) => p.type === type && p.data.email_id === emailId);
      if (found.length > 0) return found;
      if (Date.now() > deadline) throw new Error(`no ${type} webhook for ${emailId}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  suite.receivedWith = async (messageId, count = 1, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { data } = await suite.resend.emails.receiving.list();
      const found = data?.data.filter((e) => e.message_id === messageId) ?? [];
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`${found.length} received emails with ${messageId}, expected ${count}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  suite.eventsOf = async (streamId, type) =>
    (await suite.server.serving.runtime.store.readStream(streamId)).filter((e) => e.type === type).length;
  suite.deliveredTo = (to) =>
    suite.sink.waitFor((all) => all.some((m) => m.envelope.to.includes(to))).then((all) => all.filter((m) => m.envelope.to.includes(to)));
  suite.suppressions = async (origin) =>
    (
      await fetch(`${suite.server.url}/suppressions?origin=${origin}`, { headers: { authorization: `Bearer ${suite.server.token}` } }).then(
        (r) => r.json() as Promise<{ data: unknown[] }>,
      )
    ).data;
  return suite;
}
