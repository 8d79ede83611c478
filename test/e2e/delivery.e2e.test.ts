import { setTimeout as sleep } from "node:timers/promises";
import { simpleParser } from "mailparser";
import type { Resend } from "resend";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SmtpSink } from "@tidings/testkit";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";
import type { TestServer } from "../support/testServer.js";

type LastEvent = NonNullable<Awaited<ReturnType<Resend["emails"]["get"]>>["data"]>["last_event"];

/** Through the resend SDK, a whole server, and its sagas sending to a real SMTP server on loopback. */
describe("delivery through the resend SDK into a loopback SMTP sink", () => {
  let mailing: MailingServer;
  let sink: SmtpSink;
  let server: TestServer;
  let resend: Resend;
  const host = () => new URL(server.url).hostname;

  const send = async (payload: Partial<Parameters<Resend["emails"]["send"]>[0]> & { to: string | string[] }) => {
    const { data, error } = await resend.emails.send({
      from: "Acme <hello@acme.test>",
      subject: "Hello",
      html: "<p>Hi</p>",
      ...payload,
    } as Parameters<Resend["emails"]["send"]>[0]);
    if (error) throw new Error(`send: ${error.name}: ${error.message}`);
    return data!.id;
  };
  const lastEvent = async (id: string) => (await resend.emails.get(id)).data?.last_event;
  /** Polls GET /emails/:id; `seen` collects every last_event observed on the way. */
  // 20 s: the embedded tier under `npm test` runs beside the server tiers, and a retry had not been recorded after 10 s.
  const waitForLastEvent = async (id: string, expected: LastEvent, seen: Set<string> = new Set(), timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await lastEvent(id);
      if (current) seen.add(current);
      if (current === expected) return seen;
      if (Date.now() > deadline) throw new Error(`last_event is ${current}, expected ${expected}`);
      await sleep(50);
    }
  };

  beforeAll(async () => {
    // Long enough to see delivery_delayed through the API before the retry.
    mailing = await startMailingServer({ DELIVERY_RETRY_BACKOFF_MS: "1500" });
    ({ sink, server, resend } = mailing);
  });
  afterAll(() => mailing?.stop());
  beforeEach(() => sink.reset());

  it("delivers a sent email once: Message-ID from its id, custom headers, html and the text generated from it", async () => {
    const id = await send({
      to: ["Ann <ann@example.test>"],
      subject: "Your invoice",
      html: "<h1>Invoice</h1><p>Total: <b>12 EUR</b></p>",
      headers: { "X-Entity-Ref-ID": "inv-42" },
    });
    await waitForLastEvent(id, "delivered");
    const [message] = sink.withMessageId(`<${id}@${host()}>`);
    expect(message!.envelope).toEqual({ from: "hello@acme.test", to: ["ann@example.test"] });
    const parsed = await simpleParser(message!.raw);
    expect(parsed.subject).toBe("Your invoice");
    expect(parsed.from?.text).toBe('"Acme" <hello@acme.test>');
    expect(parsed.headers.get("x-entity-ref-id")).toBe("inv-42");
    expect(parsed.html).toContain("<b>12 EUR</b>");
    expect(parsed.text).toMatch(/INVOICE[\s\S]*Total: 12 EUR/i);
    await sleep(300);
    expect(sink.received).toHaveLength(1);
  });

  it("sends a published template with its variables, escaped in the html, under the template's subject and from", async () => {
    const template = await resend.templates
      .create({
        name: "Receipt",
        subject: "Receipt for {{{NAME}}}",
        from: "Billing <billing@acme.test>",
        html: "<p>Thanks, {{{NAME}}}: {{{ITEMS}}} items.</p>",
        variables: [
          { key: "NAME", type: "string", fallbackValue: "customer" },
          { key: "ITEMS", type: "number", fallbackValue: 0 },
        ],
      })
      .publish();
    if (template.error) throw new Error(`template: ${template.error.message}`);
    const sent = await resend.emails.send({
      to: "bo@example.test",
      template: { id: template.data!.id, variables: { NAME: "Bo <Admin>", ITEMS: 3 } },
    } as Parameters<Resend["emails"]["send"]>[0]);
    if (sent.error) throw new Error(`send: ${sent.error.message}`);
    await waitForLastEvent(sent.data!.id, "delivered");
    const [message] = sink.withMessageId(`<${sent.data!.id}@${host()}>`);
    const parsed = await simpleParser(message!.raw);
    expect(parsed.subject).toBe("Receipt for Bo <Admin>");
    expect(parsed.from?.text).toBe('"Billing" <billing@acme.test>');
    expect(parsed.html).toContain("<p>Thanks, Bo &lt;Admin&gt;: 3 items.</p>");
    expect(parsed.text).toContain("Thanks, Bo <Admin>: 3 items.");
  });

  it("sends attachments, an inline one by content id, and lists them with download links that serve the bytes", async () => {
    const invoice = Buffer.from("%PDF-1.4 invoice 42\n");
    const logo = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const id = await send({
      to: "cy@example.test",
      html: '<p>Your invoice</p><img src="cid:logo">',
      attachments: [
        { filename: "invoice.pdf", content: invoice.toString("base64") },
        { filename: "logo.png", content: logo, contentId: "logo" },
      ],
    });
    await waitForLastEvent(id, "delivered");
    const parsed = await simpleParser(sink.withMessageId(`<${id}@${host()}>`)[0]!.raw);
    const byName = Object.fromEntries(parsed.attachments.map((a) => [a.filename, a]));
    expect(byName["invoice.pdf"]).toMatchObject({ contentType: "application/pdf", contentDisposition: "attachment" });
    expect(byName["invoice.pdf"]!.content.equals(invoice)).toBe(true);
    expect(byName["logo.png"]).toMatchObject({ contentType: "image/png", contentDisposition: "inline", cid: "logo" });
    expect(byName["logo.png"]!.content.equals(logo)).toBe(true);

    const listed = await resend.emails.attachments.list({ emailId: id });
    expect(listed.error).toBeNull();
    const listedLogo = listed.data!.data.find((a) => a.filename === "logo.png");
    expect(listedLogo).toMatchObject({ content_type: "image/png", content_disposition: "inline", content_id: "logo", size: logo.length });
    const download = await fetch(listedLogo!.download_url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(logo)).toBe(true);
  });

  it("bounces on a 5xx, suppresses the address, and a second send to it ends suppressed without reaching the sink", async () => {
    sink.refuseRecipient("gone@example.test", { code: 550, message: "5.1.1 no such user" });
    const first = await send({ to: "gone@example.test" });
    await waitForLastEvent(first, "bounced");
    const second = await send({ to: "gone@example.test" });
    await waitForLastEvent(second, "suppressed");
    await sleep(300);
    expect(sink.received).toHaveLength(0);
  });

  it("keeps an address suppressed after its contact is erased: a send to it still ends suppressed", async () => {
    const address = "erased-gone@example.test";
    const { error } = await resend.contacts.create({ email: address, firstName: "Erased" });
    expect(error).toBeNull();
    sink.refuseRecipient(address, { code: 550, message: "5.1.1 no such user" });
    await waitForLastEvent(await send({ to: address }), "bounced");
    expect((await resend.contacts.remove({ email: address })).data).toMatchObject({ deleted: true });
    await waitForLastEvent(await send({ to: address }), "suppressed");
    await sleep(300);
    expect(sink.received).toHaveLength(0);
  });

  it("shows delivery_delayed on a 4xx and delivered once the server takes it on the retry", async () => {
    sink.failNext(1, { code: 451, message: "4.3.0 try again later" });
    const id = await send({ to: "later@example.test" });
    const seen = await waitForLastEvent(id, "delivered");
    expect(seen).toContain("delivery_delayed");
    expect(sink.refusedMessages).toBe(1);
    expect(sink.withMessageId(`<${id}@${host()}>`)).toHaveLength(1);
  });

  it("shows delivery_delayed while one recipient is deferred, then delivered, each recipient getting one copy", async () => {
    sink.refuseRecipient("greylisted@example.test", { code: 451, message: "4.2.0 greylisted" }, 1);
    const id = await send({ to: ["ann@example.test", "greylisted@example.test"], cc: "cy@example.test" });
    await waitForLastEvent(id, "delivery_delayed");
    expect(sink.withMessageId(`<${id}@${host()}>`).map((m) => m.envelope.to)).toEqual([["ann@example.test", "cy@example.test"]]);
    await waitForLastEvent(id, "delivered");
    expect(sink.withMessageId(`<${id}@${host()}>`).map((m) => m.envelope.to)).toEqual([
      ["ann@example.test", "cy@example.test"],
      ["greylisted@example.test"],
    ]);
  });

  it("shows delivered when the others took it and one recipient bounced, and suppresses only that one", async () => {
    sink.refuseRecipient("left-team@example.test", { code: 550, message: "5.1.1 no such user" });
    const id = await send({ to: ["ann@example.test", "left-team@example.test"] });
    await waitForLastEvent(id, "delivered");
    const again = await send({ to: "left-team@example.test" });
    await waitForLastEvent(again, "suppressed");
    const stillSent = await send({ to: "ann@example.test" });
    await waitForLastEvent(stillSent, "delivered");
    expect(sink.received.map((m) => m.envelope.to)).toEqual([["ann@example.test"], ["ann@example.test"]]);
  });

  it("delivers a send scheduled 2 s ahead after its time", async () => {
    const at = new Date(Date.now() + 2_000);
    const id = await send({ to: "soon@example.test", scheduledAt: at.toISOString() });
    const before = await lastEvent(id);
    // Read before its time, it can only be scheduled; a machine slow enough to pass the time first still
    // gets the checks at the sink below.
    if (Date.now() < at.getTime()) expect(before).toBe("scheduled");
    await waitForLastEvent(id, "delivered");
    const [message] = sink.withMessageId(`<${id}@${host()}>`);
    expect(message!.receivedAt.getTime()).toBeGreaterThanOrEqual(at.getTime());
    // Loose on purpose (speed is for bench/): it catches a timer left for a later sweep, not a slow machine.
    expect(message!.receivedAt.getTime() - at.getTime()).toBeLessThan(10_000);
  });

  it("never sends a canceled scheduled email, and sends a rescheduled one at its new time", async () => {
    // Far enough ahead that the cancel and the reschedule land before the first time, on a loaded machine too.
    const firstTime = new Date(Date.now() + 8_000).toISOString();
    const canceled = await send({ to: "never@example.test", scheduledAt: firstTime });
    const moved = await send({ to: "moved@example.test", scheduledAt: firstTime });
    expect((await resend.emails.cancel(canceled)).error).toBeNull();
    const newTime = new Date(Date.parse(firstTime) + 1_500);
    expect((await resend.emails.update({ id: moved, scheduledAt: newTime.toISOString() })).error).toBeNull();
    await waitForLastEvent(moved, "delivered", new Set(), newTime.getTime() + 10_000 - Date.now());
    expect(sink.withMessageId(`<${moved}@${host()}>`)[0]!.receivedAt.getTime()).toBeGreaterThanOrEqual(newTime.getTime());
    expect(await lastEvent(canceled)).toBe("canceled");
    expect(sink.withMessageId(`<${canceled}@${host()}>`)).toHaveLength(0);
  });
});
