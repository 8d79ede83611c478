import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger, formatTimestamp, loadConfig } from "@tidings/core";
import {
  broadcastStream,
  emailDecider,
  emailStream,
  fold,
  hasFinalOutcome,
  type EmailCommand,
  type EmailContent,
  type EmailEvent,
} from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { refusingAppends } from "@tidings/eventstore/testing";
import { handleCommand } from "@tidings/commands";
import { createBlobStore } from "@tidings/blobs";
import { testMode, type TestDatabase } from "@tidings/postgres";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import { suppressionsProjection } from "@tidings/projections";
import { sql } from "kysely";
import { startSagas, type RunningSagas } from "../startSagas.js";
import { bareDeliveryDeps } from "../testing/bareDeliveryDeps.js";
import { sagaPipelineForFile } from "../testing/sagaPipeline.js";
import { deliverEmail } from "./delivery.js";
import { createSmtpTransport } from "@tidings/mail";

const logger = createLogger("silent");
const teamId = randomUUID();

describe(`delivery saga (${testMode() === "server" ? "PostgreSQL and NATS" : "PGlite and the in-process bus"}) into a loopback SMTP sink`, () => {
  const pipeline = sagaPipelineForFile({ projections: [suppressionsProjection] });
  let test: TestDatabase;
  let store: EventStore;
  let sagas: RunningSagas;
  let sink: SmtpSink;

  const content = (overrides: Partial<EmailContent> = {}): EmailContent => {
    const emailId = randomUUID();
    return {
      emailId,
      teamId,
      from: "Acme <hello@acme.test>",
      to: ["Ann <ann@example.test>"],
      cc: [],
      bcc: ["audit@example.test"],
      replyTo: [],
      subject: `Hello ${emailId}`,
      html: "<p>Hi <b>Ann</b></p>",
      text: "Hi ANN",
      headers: { "X-Entity-Ref-ID": emailId },
      tags: [],
      attachments: [],
      templateId: null,
      templateVersion: null,
      domainId: null,
      createdAt: formatTimestamp(new Date()),
      ...overrides,
    };
  };
  const send = async (email: EmailContent, scheduledAt: string | null = null) => {
    await command(email.emailId, { type: "SendEmail", content: email, scheduledAt, suppressed: [], now: formatTimestamp(new Date()) });
    return email.emailId;
  };
  const command = (emailId: string, c: EmailCommand) =>
    handleCommand({ store, streamId: emailStream(emailId), decider: emailDecider, command: c, metadata: { teamId, actor: "test" } });
  const types = async (emailId: string) => (await store.readStream(emailStream(emailId))).map((e) => e.type);
  const waitForType = async (emailId: string, type: string, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await types(emailId)).includes(type)) {
      if (Date.now() > deadline) throw new Error(`${type} not recorded; stream has ${(await types(emailId)).join(", ")}`);
      await sleep(50);
    }
  };

  /** Until the stream's fold has no recipient left to send to. */
  const waitForRecipientsSettled = async (emailId: string, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    const settled = async () =>
      hasFinalOutcome(fold(emailDecider, (await store.readStream(emailStream(emailId))) as unknown as EmailEvent[]));
    while (!(await settled())) {
      if (Date.now() > deadline) throw new Error(`recipients still pending; stream has ${(await types(emailId)).join(", ")}`);
      await sleep(50);
    }
  };

  beforeAll(async () => {
    sink = await startSmtpSink();
    ({ test, store } = pipeline);
    const config = loadConfig({
      MAIL_TRANSPORT: "smtp",
      SMTP_URL: sink.url,
      PUBLIC_URL: "https://tidings.test",
      DELIVERY_RETRY_BACKOFF_MS: "300,600,90000000",
    });
    sagas = await startSagas({ store, database: test.database, bus: pipeline.bus, config, logger });
  });
  afterAll(async () => {
    await sagas?.stop();
    await sink?.close();
  });
  beforeEach(() => sink.reset());

  it("sends a queued email once, with its Message-ID, headers, parts and attachment, and records sent then delivered", async () => {
    const pdf = Buffer.from("%PDF-1.4 pretend");
    const blob = await createBlobStore(test.database).put(pdf);
    const attachment = {
      id: randomUUID(),
      filename: "invoice.pdf",
      contentType: "application/pdf",
      size: pdf.length,
      contentId: null,
      disposition: "attachment" as const,
      blob,
    };
    const emailId = await send(content({ attachments: [attachment] }));
    await waitForType(emailId, "EmailDelivered");
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered"]);
    const [message] = sink.withMessageId(`<${emailId}@tidings.test>`);
    expect(message!.envelope).toEqual({ from: "hello@acme.test", to: ["ann@example.test", "audit@example.test"] });
    const parsed = await simpleParser(message!.raw);
    expect(parsed.subject).toBe(`Hello ${emailId}`);
    expect(parsed.headers.get("x-entity-ref-id")).toBe(emailId);
    expect(parsed.html).toContain("<b>Ann</b>");
    expect(parsed.text?.trim()).toBe("Hi ANN");
    expect(parsed.headers.has("bcc")).toBe(false);
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([["invoice.pdf", pdf.toString()]]);
    await sleep(300);
    expect(sink.received).toHaveLength(1);
  });

  it("cancels, without sending it, a broadcast's email whose broadcast was canceled before its first attempt", async () => {
    const broadcastId = randomUUID();
    await store.append(
      broadcastStream(broadcastId),
      [
        {
          id: randomUUID(),
          type: "BroadcastCanceled",
          data: { broadcastId, canceledAt: formatTimestamp(new Date()) },
          metadata: { teamId, actor: "test" },
        },
      ],
      "no_stream",
    );
    const emailId = await send(content({ broadcastId }));
    await waitForType(emailId, "EmailCanceled");
    await sleep(300);
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailCanceled"]);
    expect(sink.received).toHaveLength(0);
  });

  it("sends an email once when deliveries of it run side by side in one process (a redelivery beside the first, a retry timer)", async () => {
    // Slow replies keep each send open long enough for the others to start meanwhile.
    sink.delayReplies(300);
    const transport = createSmtpTransport({ url: sink.url, maxConnections: 3 });
    const deps = bareDeliveryDeps(test.database, { store, transport, slots: 3, subject: "once" });
    try {
      const emailId = await send(content());
      await Promise.all([deliverEmail(deps, emailId), deliverEmail(deps, emailId), deliverEmail(deps, emailId)]);
      await waitForType(emailId, "EmailDelivered");
      await sleep(500);
      expect(sink.received.filter((m) => m.messageId === `<${emailId}@tidings.test>`)).toHaveLength(1);
      expect(await types(emailId)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered"]);
    } finally {
      sink.delayReplies(0);
      await transport.close();
    }
  });

  it("keeps trying to record a sent email's outcome while the store refuses it, instead of sending it again", async () => {
    const transport = createSmtpTransport({ url: sink.url, maxConnections: 1 });
    // Three refused appends stand in for the database restarting right after the server's 250.
    const away = refusingAppends(store, 3);
    const deps = bareDeliveryDeps(test.database, { store: away.store, transport, slots: 1, subject: "once" });
    try {
      const emailId = await send(content());
      await deliverEmail(deps, emailId);
      expect(away.attempts).toBeGreaterThan(3);
      expect(await types(emailId)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered"]);
      await deliverEmail(deps, emailId);
      expect(sink.received.filter((m) => m.messageId === `<${emailId}@tidings.test>`)).toHaveLength(1);
    } finally {
      await transport.close();
    }
  });

  it("fails an email whose attachment bytes are missing from the blob store, without sending it", async () => {
    const attachment = {
      id: randomUUID(),
      filename: "gone.pdf",
      contentType: "application/pdf",
      size: 3,
      contentId: null,
      disposition: "attachment" as const,
      blob: "f".repeat(64),
    };
    const emailId = await send(content({ attachments: [attachment] }));
    await waitForType(emailId, "EmailFailed");
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailFailed"]);
    expect(sink.received).toHaveLength(0);
  });

  it("records a 5xx as a permanent bounce of the refused recipient and sends nothing more", async () => {
    sink.refuseRecipient("gone@example.test", { code: 550, message: "5.1.1 no such user" });
    const emailId = await send(content({ to: ["gone@example.test"], bcc: [] }));
    await waitForType(emailId, "EmailBounced");
    const bounced = (await store.readStream(emailStream(emailId))).find((e) => e.type === "EmailBounced")!.data as {
      recipients: string[];
      code: number;
      bounce: { type: string };
    };
    expect(bounced).toMatchObject({ recipients: ["gone@example.test"], code: 550, bounce: { type: "permanent" } });
    expect(sink.received).toHaveLength(0);
  });

  it("suppresses at delivery an email accepted minutes before its recipient bounced, without reaching the sink", async () => {
    sink.refuseRecipient("bounced-later@example.test", { code: 550, message: "5.1.1 no such user" });
    await waitForType(await send(content({ to: ["bounced-later@example.test"], bcc: [] })), "EmailBounced");
    const deadline = Date.now() + 5_000;
    while ((await sql`SELECT 1 FROM suppressions WHERE email = 'bounced-later@example.test'`.execute(test.database.db)).rows.length === 0) {
      if (Date.now() > deadline) throw new Error("the bounce never reached the suppression list");
      await sleep(50);
    }
    sink.reset();
    const acceptedLongAgo = formatTimestamp(new Date(Date.now() - 5 * 60_000));
    const emailId = await send(content({ to: ["Later <Bounced-Later@example.test>"], bcc: [], createdAt: acceptedLongAgo }));
    await waitForType(emailId, "EmailSuppressed");
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailSuppressed"]);
    expect(sink.received).toHaveLength(0);
  });

  it("records a 4xx as delivery_delayed and retries on the backoff until the server takes it", async () => {
    sink.failNext(2, { code: 451, message: "4.3.0 try again later" });
    const emailId = await send(content());
    await waitForType(emailId, "EmailDelivered");
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailDeliveryDelayed", "EmailDeliveryDelayed", "EmailSent", "EmailDelivered"]);
    expect(sink.refusedMessages).toBe(2);
    expect(sink.withMessageId(`<${emailId}@tidings.test>`)).toHaveLength(1);
  });

  const copiesPerRecipient = (emailId: string) => {
    const copies: Record<string, number> = {};
    for (const message of sink.withMessageId(`<${emailId}@tidings.test>`))
      for (const to of message.envelope.to) copies[to] = (copies[to] ?? 0) + 1;
    return copies;
  };

  it("retries a partially deferred email only to the deferred recipient, so each recipient gets exactly one copy of the same bytes", async () => {
    sink.refuseRecipient("bob@example.test", { code: 451, message: "4.2.0 greylisted" }, 1);
    const emailId = await send(content({ to: ["Ann <ann@example.test>", "bob@example.test"] }));
    await waitForType(emailId, "EmailDeliveryDelayed");
    await sink.waitFor(() => copiesPerRecipient(emailId)["bob@example.test"] === 1);
    await waitForRecipientsSettled(emailId);
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered", "EmailDeliveryDelayed", "EmailDelivered"]);
    const [first, retry] = sink.withMessageId(`<${emailId}@tidings.test>`);
    expect([first!.envelope.to, retry!.envelope.to]).toEqual([["ann@example.test", "audit@example.test"], ["bob@example.test"]]);
    expect(retry!.raw.equals(first!.raw)).toBe(true);
    const to = (await simpleParser(retry!.raw)).to;
    expect((Array.isArray(to) ? to : [to]).flatMap((t) => t!.value.map((a) => a.address))).toEqual([
      "ann@example.test",
      "bob@example.test",
    ]);
    await sleep(700);
    expect(copiesPerRecipient(emailId)).toEqual({ "ann@example.test": 1, "audit@example.test": 1, "bob@example.test": 1 });
  });

  it("bounces one recipient alone, suppressing only that address, and delivers to the others, retrying the deferred", async () => {
    sink.refuseRecipient("left@example.test", { code: 550, message: "5.1.1 no such user" });
    sink.refuseRecipient("bob@example.test", { code: 452, message: "4.2.2 mailbox full" }, 2);
    const emailId = await send(content({ to: ["ann@example.test", "left@example.test", "bob@example.test"] }));
    const suppressed = async () =>
      (await sql<{ email: string }>`SELECT email FROM suppressions WHERE source_id = ${emailId}`.execute(test.database.db)).rows;
    await waitForRecipientsSettled(emailId);
    const recorded = (await store.readStream(emailStream(emailId))).map((e) => [e.type, (e.data as { recipients?: string[] }).recipients]);
    expect(recorded).toEqual([
      ["EmailQueued", undefined],
      ["EmailSent", undefined],
      ["EmailBounced", ["left@example.test"]],
      ["EmailDelivered", ["ann@example.test", "audit@example.test"]],
      ["EmailDeliveryDelayed", ["bob@example.test"]],
      ["EmailDeliveryDelayed", ["bob@example.test"]],
      ["EmailDelivered", ["bob@example.test"]],
    ]);
    const deadline = Date.now() + 5_000;
    while ((await suppressed()).length === 0 && Date.now() < deadline) await sleep(50);
    expect(await suppressed()).toEqual([{ email: "left@example.test" }]);
    expect(copiesPerRecipient(emailId)).toEqual({ "ann@example.test": 1, "audit@example.test": 1, "bob@example.test": 1 });
  });

  it("records failed instead of a third deferral whose retry would fall more than 24 h after the first", async () => {
    sink.failNext(3, { code: 421, message: "4.7.0 too busy" });
    const emailId = await send(content());
    await waitForType(emailId, "EmailFailed");
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailDeliveryDelayed", "EmailDeliveryDelayed", "EmailFailed"]);
    const failed = (await store.readStream(emailStream(emailId))).at(-1)!.data as { reason: string; code: number };
    expect(failed).toMatchObject({ code: 421, reason: expect.stringContaining("24 hours") });
  });

  it("queues a scheduled email when its time comes, not before, and sends it", async () => {
    const at = new Date(Date.now() + 2_000);
    const emailId = await send(content(), formatTimestamp(at));
    // Looked at shortly before its time, however long the send took: how late it fires is bench's business.
    await sleep(Math.max(0, at.getTime() - Date.now() - 300));
    expect(await types(emailId)).toEqual(["EmailScheduled"]);
    await waitForType(emailId, "EmailDelivered");
    const [message] = sink.withMessageId(`<${emailId}@tidings.test>`);
    expect(message!.receivedAt.getTime()).toBeGreaterThanOrEqual(at.getTime());
  });

  it("sends a rescheduled email at its new time and never a canceled one", async () => {
    // Far enough ahead that the reschedule and the cancel come first on a loaded machine too.
    const rescheduled = await send(content(), formatTimestamp(new Date(Date.now() + 3_000)));
    const canceled = await send(content(), formatTimestamp(new Date(Date.now() + 3_000)));
    const newTime = new Date(Date.now() + 4_500);
    await command(rescheduled, {
      type: "RescheduleEmail",
      teamId,
      scheduledAt: formatTimestamp(newTime),
      now: formatTimestamp(new Date()),
    });
    await command(canceled, { type: "CancelEmail", teamId, now: formatTimestamp(new Date()) });
    await waitForType(rescheduled, "EmailDelivered");
    expect(sink.withMessageId(`<${rescheduled}@tidings.test>`)[0]!.receivedAt.getTime()).toBeGreaterThanOrEqual(newTime.getTime());
    await sleep(300);
    expect(await types(canceled)).toEqual(["EmailScheduled", "EmailCanceled"]);
    expect(sink.withMessageId(`<${canceled}@tidings.test>`)).toHaveLength(0);
  });
});
