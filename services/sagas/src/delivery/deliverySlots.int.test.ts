import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { formatTimestamp } from "@tidings/core";
import { emailDecider, emailStream } from "@tidings/domain";
import { anEmailContent } from "@tidings/domain/testing";
import { createPostgresEventStore, eventStoreMigrations, type EventStore } from "@tidings/eventstore";
import { handleCommand } from "@tidings/commands";
import { createSmtpTransport, type MailTransport } from "@tidings/mail";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import { createTestDatabase, migrate, type TestDatabase } from "@tidings/postgres";
import { bareDeliveryDeps } from "../testing/bareDeliveryDeps.js";
import { deliverEmail, HoldLapsedError } from "./delivery.js";
import { timerMigrations } from "../timers/index.js";

const teamId = randomUUID();

let test: TestDatabase;
let store: EventStore;
let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
  test = await createTestDatabase();
  await migrate(test.database, "eventstore", eventStoreMigrations);
  await migrate(test.database, "timers", timerMigrations);
  store = createPostgresEventStore(test.database);
});
afterAll(async () => {
  await store?.close();
  await test?.dispose();
  await sink?.close();
});

async function queueEmail(): Promise<string> {
  const emailId = randomUUID();
  const now = formatTimestamp(new Date());
  const content = anEmailContent({ emailId, teamId, from: "hello@acme.test", subject: "slots", html: null, text: "slots", createdAt: now });
  const command = { type: "SendEmail" as const, content, scheduledAt: null, suppressed: [], now };
  await handleCommand({ store, streamId: emailStream(emailId), decider: emailDecider, command, metadata: { teamId, actor: "test" } });
  return emailId;
}

/** Two send slots. */
const deliveryDeps = (store: EventStore, transport: MailTransport) =>
  bareDeliveryDeps(test.database, { store, transport, slots: 2, subject: "slots" });

it("has no more emails between the server's 250 and their record than it has send slots, however many it delivers at once", async () => {
  const transport = createSmtpTransport({ url: sink.url, maxConnections: 8 });
  const unrecorded = new Set<string>();
  let mostUnrecorded = 0;
  // A slow record widens each email's window, so that windows overlap wherever they can.
  const slowRecords: EventStore = Object.create(store, {
    append: {
      value: async (...args: Parameters<EventStore["append"]>) => {
        await sleep(100);
        const result = await store.append(...args);
        unrecorded.delete(args[0].slice("email-".length));
        return result;
      },
    },
  });
  const deps = deliveryDeps(slowRecords, {
    send: async (mail) => {
      const outcome = await transport.send(mail);
      unrecorded.add(mail.emailId);
      mostUnrecorded = Math.max(mostUnrecorded, unrecorded.size);
      return outcome;
    },
    close: () => transport.close(),
  });
  try {
    const emailIds = await Promise.all(Array.from({ length: 8 }, queueEmail));
    await Promise.all(emailIds.map((emailId) => deliverEmail(deps, emailId)));
    for (const emailId of emailIds)
      expect((await store.readStream(emailStream(emailId))).map((e) => e.type)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered"]);
    expect(sink.received).toHaveLength(8);
    expect(mostUnrecorded).toBe(2);
  } finally {
    await transport.close();
  }
});

it("once stopping, hands no more emails to the relay, and records the outcome of each one the relay already has", async () => {
  sink.reset();
  sink.delayReplies(1_000);
  const transport = createSmtpTransport({ url: sink.url, maxConnections: 2 });
  const stopping = new AbortController();
  try {
    const emailIds = await Promise.all(Array.from({ length: 6 }, queueEmail));
    const deps = deliveryDeps(store, transport);
    const deliveries = emailIds.map((emailId) =>
      deliverEmail(deps, emailId, stopping.signal).then(
        () => "recorded",
        () => "stopped",
      ),
    );
    for (const deadline = Date.now() + 10_000; sink.heldReplies < 2; await sleep(10))
      if (Date.now() > deadline) throw new Error("no send reached the relay");
    stopping.abort();
    expect((await Promise.all(deliveries)).sort()).toEqual(["recorded", "recorded", "stopped", "stopped", "stopped", "stopped"]);
    const shapes = await Promise.all(
      emailIds.map(async (emailId) => (await store.readStream(emailStream(emailId))).map((e) => e.type).join(",")),
    );
    expect(shapes.sort()).toEqual([
      "EmailQueued",
      "EmailQueued",
      "EmailQueued",
      "EmailQueued",
      "EmailQueued,EmailSent,EmailDelivered",
      "EmailQueued,EmailSent,EmailDelivered",
    ]);
    expect(sink.received).toHaveLength(2);
  } finally {
    sink.delayReplies(0);
    await transport.close();
  }
});

it("sends nothing and records nothing when its bus message may have gone to another process, and sends once on the next delivery", async () => {
  sink.reset();
  const transport = createSmtpTransport({ url: sink.url, maxConnections: 1 });
  try {
    const emailId = await queueEmail();
    const deps = deliveryDeps(store, transport);
    await expect(deliverEmail(deps, emailId, undefined, () => false)).rejects.toBeInstanceOf(HoldLapsedError);
    expect((await store.readStream(emailStream(emailId))).map((e) => e.type)).toEqual(["EmailQueued"]);
    expect(sink.received).toHaveLength(0);
    await deliverEmail(deps, emailId, undefined, () => true);
    expect((await store.readStream(emailStream(emailId))).map((e) => e.type)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered"]);
    expect(sink.received).toHaveLength(1);
  } finally {
    await transport.close();
  }
});
