import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { arrivedAt, mailTransportContract } from "../testing/contract.js";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import type { MailTransport, OutgoingMail } from "../port.js";
import { createSmtpTransport } from "./smtpTransport.js";

const raw = (id: string) =>
  Buffer.from(`From: a@acme.test\r\nTo: ann@example.test\r\nSubject: hi\r\nMessage-ID: <${id}@acme.test>\r\n\r\nhello\r\n`);
const aMail = (overrides: Partial<OutgoingMail> = {}): OutgoingMail => ({
  emailId: "e1",
  envelope: { from: "a@acme.test", to: ["ann@example.test", "hidden@example.test"] },
  raw: raw("e1"),
  tls: "opportunistic",
  ...overrides,
});

async function closedPort() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

mailTransportContract("smtp relay", async () => {
  const relay = await startSmtpSink();
  const transport = createSmtpTransport({ url: relay.url, maxConnections: 2 });
  return {
    transport,
    recipients: ["ann@example.test", "bob@example.test"],
    arrived: arrivedAt(relay),
    dispose: async () => {
      await transport.close();
      await relay.close();
    },
  };
});

describe("smtp transport", () => {
  let sink: SmtpSink;
  let transport: MailTransport;
  beforeAll(async () => {
    sink = await startSmtpSink();
    transport = createSmtpTransport({ url: sink.url, maxConnections: 2 });
  });
  afterAll(async () => {
    await transport.close();
    await sink.close();
  });
  beforeEach(() => sink.reset());

  it("delivers on 250, to every envelope recipient, bytes unchanged", async () => {
    const outcome = await transport.send(aMail());
    expect(outcome).toMatchObject({ kind: "delivered", code: 250 });
    expect(outcome.perRecipient?.map((r) => [r.recipient, r.kind])).toEqual([
      ["ann@example.test", "delivered"],
      ["hidden@example.test", "delivered"],
    ]);
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]!.envelope).toEqual({ from: "a@acme.test", to: ["ann@example.test", "hidden@example.test"] });
    expect(sink.received[0]!.raw.toString()).toBe(raw("e1").toString());
    expect(sink.withMessageId("<e1@acme.test>")).toHaveLength(1);
  });

  it("defers on a 4xx after DATA, with the code and the server's words", async () => {
    sink.failNext(1, { code: 451, message: "greylisted, come back later" });
    const outcome = await transport.send(aMail());
    expect(outcome).toMatchObject({ kind: "deferred", code: 451 });
    expect(outcome.response).toContain("greylisted, come back later");
    expect(sink.received).toHaveLength(0);
    expect(await transport.send(aMail())).toMatchObject({ kind: "delivered" });
  });

  it("bounces on a 5xx after DATA", async () => {
    sink.failNext(1, { code: 554, message: "message refused" });
    const outcome = await transport.send(aMail());
    expect(outcome).toMatchObject({ kind: "bounced", code: 554 });
    expect(outcome.response).toContain("message refused");
  });

  it("reports a recipient refused at RCPT apart, and delivers to the others", async () => {
    sink.refuseRecipient("HIDDEN@example.test", { code: 550, message: "no such mailbox" });
    const outcome = await transport.send(aMail());
    expect(outcome.kind).toBe("delivered");
    expect(outcome.perRecipient).toEqual([
      expect.objectContaining({ recipient: "ann@example.test", kind: "delivered", code: 250 }),
      expect.objectContaining({
        recipient: "hidden@example.test",
        kind: "bounced",
        code: 550,
        response: expect.stringContaining("no such mailbox"),
      }),
    ]);
    expect(sink.received[0]!.envelope.to).toEqual(["ann@example.test"]);
  });

  it("defers the whole email when one recipient is deferred, saying which one is done", async () => {
    sink.refuseRecipient("ann@example.test", { code: 452, message: "mailbox full for now" });
    const outcome = await transport.send(aMail());
    expect(outcome).toMatchObject({ kind: "deferred", code: 452 });
    expect(outcome.perRecipient?.map((r) => r.kind)).toEqual(["deferred", "delivered"]);
  });

  it("bounces every recipient when all are refused", async () => {
    sink.refuseRecipient("ann@example.test", { code: 550, message: "no" });
    sink.refuseRecipient("hidden@example.test", { code: 551, message: "no either" });
    const outcome = await transport.send(aMail());
    expect(outcome.perRecipient?.map((r) => [r.kind, r.code])).toEqual([
      ["bounced", 550],
      ["bounced", 551],
    ]);
  });

  it("keeps at most maxConnections connections open, and reuses them", async () => {
    sink.delayReplies(50);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => transport.send(aMail({ emailId: `p${i}`, raw: raw(`p${i}`) }))),
    );
    expect(outcomes.every((o) => o.kind === "delivered")).toBe(true);
    expect(sink.received).toHaveLength(10);
    expect(sink.peakConnections).toBe(2);
  });

  it("sends one message after another on a connection without waiting out the server's delayed ACK", async () => {
    const single = createSmtpTransport({ url: sink.url, maxConnections: 1 });
    await single.send(aMail());
    const took: number[] = [];
    for (let i = 0; i < 30; i++) {
      const started = performance.now();
      await single.send(aMail({ emailId: `s${i}` }));
      took.push(performance.now() - started);
    }
    await single.close();
    // With Nagle's algorithm on, every message waits for a delayed ACK, at least 40 ms on Linux. A busy machine
    // makes some sends slow, never all thirty: the quickest shows whether the wait is there.
    expect(Math.min(...took)).toBeLessThan(40);
  });

  it("defers when the relay cannot be reached", async () => {
    const nowhere = createSmtpTransport({ url: `smtp://127.0.0.1:${await closedPort()}`, maxConnections: 1 });
    const outcome = await nowhere.send(aMail());
    await nowhere.close();
    expect(outcome.kind).toBe("deferred");
    expect(outcome.code).toBeUndefined();
    expect(outcome.response).toMatch(/ECONNREFUSED/);
  });

  it("keeps deferring while the relay cannot be reached, for more sends than it has connections", { timeout: 20_000 }, async () => {
    const nowhere = createSmtpTransport({ url: `smtp://127.0.0.1:${await closedPort()}`, maxConnections: 2 });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await nowhere.send(aMail({ emailId: `r${i}` })));
    await nowhere.close();
    expect(outcomes.map((o) => o.kind)).toEqual(["deferred", "deferred", "deferred", "deferred", "deferred"]);
    expect(outcomes.every((o) => /ECONNREFUSED/.test(o.response))).toBe(true);
  });

  it("fails an email whose domain enforces TLS when the relay offers no STARTTLS", async () => {
    const outcome = await transport.send(aMail({ tls: "enforced" }));
    expect(outcome.kind).toBe("failed");
    expect(outcome.response).toMatch(/^TLS required by the domain but not offered/);
    expect(sink.received).toHaveLength(0);
  });

  it("sends an email whose domain enforces TLS over STARTTLS when the relay offers it", async () => {
    const tlsSink = await startSmtpSink({ starttls: true });
    const relay = createSmtpTransport({ url: `${tlsSink.url}?tls.rejectUnauthorized=false`, maxConnections: 1 });
    try {
      expect(await relay.send(aMail({ tls: "enforced" }))).toMatchObject({ kind: "delivered" });
      expect(await relay.send(aMail({ emailId: "e2" }))).toMatchObject({ kind: "delivered" });
      expect(tlsSink.received.map((m) => m.secure)).toEqual([true, true]);
    } finally {
      await relay.close();
      await tlsSink.close();
    }
  });
});
