import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MailTransport, OutgoingMail } from "../port.js";
import { arrivedAt, mailTransportContract } from "../testing/contract.js";
import { startDnsResponder, type DnsResponder } from "@tidings/testkit";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import { createMxTransport } from "./mxTransport.js";

const aMail = (to: string[], overrides: Partial<OutgoingMail> = {}): OutgoingMail => ({
  emailId: "e1",
  envelope: { from: "a@acme.test", to },
  raw: Buffer.from("From: a@acme.test\r\nSubject: hi\r\nMessage-ID: <e1@acme.test>\r\n\r\nhello\r\n"),
  tls: "opportunistic",
  ...overrides,
});

// Real DNS on loopback: 127.0.0.2 has nothing listening on the sink's port, so the preferred MX refuses.
const zone = {
  "example.test": {
    MX: [
      { priority: 10, exchange: "down.example.test" },
      { priority: 20, exchange: "mx.example.test" },
    ],
  },
  "down.example.test": { A: ["127.0.0.2"] },
  "mx.example.test": { A: ["127.0.0.1"] },
  "implicit.test": { A: ["127.0.0.1"] },
  "nomail.test": { MX: [{ priority: 0, exchange: "." }] },
  "broken.test": { SERVFAIL: true as const },
};

mailTransportContract("mx", async () => {
  const dns = await startDnsResponder(zone);
  const mx = await startSmtpSink();
  const transport = createMxTransport({ dnsServers: [dns.address], port: mx.port, rejectUnauthorized: true, maxConnections: 2 });
  return {
    transport,
    recipients: ["ann@example.test", "bob@implicit.test"],
    arrived: arrivedAt(mx),
    dispose: async () => {
      await transport.close();
      await Promise.all([mx.close(), dns.close()]);
    },
  };
});

describe("mx transport", () => {
  let dns: DnsResponder;
  let sink: SmtpSink;
  let tlsSink: SmtpSink;
  let transport: MailTransport;
  const toTlsSink = (rejectUnauthorized: boolean) =>
    createMxTransport({ dnsServers: [dns.address], port: tlsSink.port, rejectUnauthorized, maxConnections: 4 });

  beforeAll(async () => {
    dns = await startDnsResponder(zone);
    sink = await startSmtpSink();
    tlsSink = await startSmtpSink({ starttls: true });
    transport = createMxTransport({ dnsServers: [dns.address], port: sink.port, rejectUnauthorized: true, maxConnections: 2 });
  });
  afterAll(async () => {
    await transport.close();
    await Promise.all([sink.close(), tlsSink.close(), dns.close()]);
  });
  beforeEach(() => {
    sink.reset();
    tlsSink.reset();
  });

  it("delivers one transaction per recipient domain, past an MX that refuses, and to a domain's own address without MX", async () => {
    const outcome = await transport.send(aMail(["ann@example.test", "bob@implicit.test", "cy@Example.TEST"]));
    expect(outcome.kind).toBe("delivered");
    expect(outcome.perRecipient?.map((r) => [r.recipient, r.kind])).toEqual([
      ["ann@example.test", "delivered"],
      ["bob@implicit.test", "delivered"],
      ["cy@Example.TEST", "delivered"],
    ]);
    expect(sink.received.map((m) => m.envelope.to).sort()).toEqual([["ann@example.test", "cy@example.test"], ["bob@implicit.test"]]);
  });

  it("bounces a domain that does not exist or accepts no mail, and defers one whose DNS fails", async () => {
    const outcome = await transport.send(aMail(["a@nowhere.test", "b@nomail.test", "c@broken.test", "d@example.test"]));
    expect(outcome.kind).toBe("deferred");
    expect(outcome.perRecipient?.map((r) => [r.recipient, r.kind])).toEqual([
      ["a@nowhere.test", "bounced"],
      ["b@nomail.test", "bounced"],
      ["c@broken.test", "deferred"],
      ["d@example.test", "delivered"],
    ]);
    expect(outcome.perRecipient?.[0]?.response).toMatch(/does not exist/);
    expect(sink.received).toHaveLength(1);
  });

  it("maps the MX's replies: 5xx bounces, 4xx defers", async () => {
    sink.refuseRecipient("gone@example.test", { code: 550, message: "no such user" });
    sink.refuseRecipient("full@example.test", { code: 452, message: "over quota" });
    const outcome = await transport.send(aMail(["gone@example.test", "full@example.test"]));
    expect(outcome.perRecipient?.map((r) => [r.kind, r.code])).toEqual([
      ["bounced", 550],
      ["deferred", 452],
    ]);
  });

  it("keeps at most maxConnections SMTP connections open at once", async () => {
    sink.delayReplies(50);
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => transport.send(aMail([`u${i}@example.test`, `v${i}@implicit.test`]))),
    );
    expect(outcomes.every((o) => o.kind === "delivered")).toBe(true);
    expect(sink.received).toHaveLength(12);
    expect(sink.peakConnections).toBe(2);
  });

  it("fails with a reason when the domain enforces TLS and no MX offers STARTTLS", async () => {
    const outcome = await transport.send(aMail(["ann@example.test"], { tls: "enforced" }));
    expect(outcome.kind).toBe("failed");
    expect(outcome.response).toMatch(/^TLS required by the domain but not offered/);
    expect(sink.received).toHaveLength(0);
  });

  it("delivers over STARTTLS when the domain enforces TLS and the MX's certificate is accepted", async () => {
    const trusting = toTlsSink(false);
    expect(await trusting.send(aMail(["ann@example.test"], { tls: "enforced" }))).toMatchObject({ kind: "delivered" });
    await trusting.close();
    expect(tlsSink.received.map((m) => m.secure)).toEqual([true]);
  });

  it("fails an enforced-TLS email when the MX's certificate cannot be verified", async () => {
    const verifying = toTlsSink(true);
    const outcome = await verifying.send(aMail(["ann@example.test"], { tls: "enforced" }));
    await verifying.close();
    expect(outcome.kind).toBe("failed");
    expect(outcome.response).toMatch(/certificate/);
    expect(tlsSink.received).toHaveLength(0);
  });

  it("upgrades opportunistically without checking the certificate", async () => {
    const verifying = toTlsSink(true);
    expect(await verifying.send(aMail(["ann@example.test"]))).toMatchObject({ kind: "delivered" });
    await verifying.close();
    expect(tlsSink.received.map((m) => m.secure)).toEqual([true]);
  });
});
