import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSmtpTransport, type MailTransport } from "@tidings/mail";
import { startSmtpSink, type SmtpSink } from "./smtpSink.js";

const send = (transport: MailTransport, id: string, to = ["ann@example.test"]) =>
  transport.send({
    emailId: id,
    envelope: { from: "a@acme.test", to },
    raw: Buffer.from(`Subject: ${id}\r\nMessage-ID: <${id}@acme.test>\r\n\r\nhi\r\n`),
    tls: "opportunistic",
  });

describe("SMTP sink", () => {
  let sink: SmtpSink;
  let transport: MailTransport;
  beforeAll(async () => {
    sink = await startSmtpSink();
    transport = createSmtpTransport({ url: sink.url, maxConnections: 1 });
  });
  afterAll(async () => {
    await transport.close();
    await sink.close();
  });

  it("fails exactly the next N messages, then accepts again, keeping only what it accepted", async () => {
    sink.failNext(2, { code: 421, message: "busy" });
    const kinds = [];
    for (const id of ["f1", "f2", "f3"]) kinds.push((await send(transport, id)).kind);
    expect(kinds).toEqual(["deferred", "deferred", "delivered"]);
    expect(sink.refusedMessages).toBe(2);
    expect(sink.received.map((m) => m.messageId)).toEqual(["<f3@acme.test>"]);
  });

  it("refuses a recipient at RCPT only the next N times when told so, then accepts it", async () => {
    sink.reset();
    sink.refuseRecipient("Bob@example.test", { code: 451, message: "4.2.0 greylisted" }, 1);
    const first = await send(transport, "r1", ["ann@example.test", "bob@example.test"]);
    expect(first.perRecipient?.map((r) => [r.recipient, r.kind, r.code])).toEqual([
      ["ann@example.test", "delivered", 250],
      ["bob@example.test", "deferred", 451],
    ]);
    expect((await send(transport, "r2", ["bob@example.test"])).kind).toBe("delivered");
    expect(sink.received.map((m) => m.envelope.to)).toEqual([["ann@example.test"], ["bob@example.test"]]);
  });

  it("wakes a waiter when the awaited message arrives, and times out naming what it holds", async () => {
    sink.reset();
    const waiting = sink.waitFor((received) => received.some((m) => m.messageId === "<w2@acme.test>"));
    await send(transport, "w1");
    await send(transport, "w2");
    expect((await waiting).map((m) => m.messageId)).toEqual(["<w1@acme.test>", "<w2@acme.test>"]);
    await expect(sink.waitForMessages(3, 50)).rejects.toThrow("the SMTP sink holds 2 messages after 50 ms, expected 3");
  });
});
