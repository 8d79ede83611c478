import { describe, expect, it } from "vitest";
import { newId } from "@tidings/core";
import { emailStream } from "@tidings/domain";
import { anEmailContent } from "@tidings/domain/testing";
import { WrongExpectedRevisionError } from "@tidings/eventstore";
import { testEventStore } from "@tidings/eventstore/testing";
import { queueEmail, type EmailToQueue } from "./queueEmail.js";

const store = testEventStore();

const anEmail = (overrides: Partial<EmailToQueue> = {}): EmailToQueue => ({
  content: anEmailContent({ emailId: newId() }),
  scheduledAt: null,
  suppressed: [],
  now: "2026-11-23 10:00:00.000000+00",
  metadata: { actor: "saga:test" },
  ...overrides,
});

describe("queueEmail", () => {
  it("queues a derived email once, however often its cause runs, with the same event ids", async () => {
    const email = anEmail();
    await queueEmail(store, email, "derived");
    await queueEmail(store, email, "derived");
    await queueEmail(
      store,
      { ...email, now: "2026-11-23 10:05:00.000000+00", content: { ...email.content, subject: "Rendered again" } },
      "derived",
    );
    const events = await store.readStream(emailStream(email.content.emailId));
    expect(events.map((e) => e.type)).toEqual(["EmailQueued"]);
    const again = anEmail({ content: anEmailContent({ emailId: newId() }) });
    await queueEmail(store, again, "derived");
    expect((await store.readStream(emailStream(again.content.emailId)))[0]!.id).not.toBe(events[0]!.id);
  });

  it("refuses a second append of a fresh email: its id was generated for one request", async () => {
    const email = anEmail();
    await queueEmail(store, email, "fresh");
    await expect(queueEmail(store, email, "fresh")).rejects.toBeInstanceOf(WrongExpectedRevisionError);
  });

  it("records a suppressed recipient in the same append, and a scheduled email as scheduled", async () => {
    const suppressed = anEmail({ suppressed: [{ email: "ann@example.test", origin: "bounce" }] });
    await queueEmail(store, suppressed, "fresh");
    expect((await store.readStream(emailStream(suppressed.content.emailId))).map((e) => e.type)).toEqual([
      "EmailQueued",
      "EmailSuppressed",
    ]);
    const scheduled = anEmail({ scheduledAt: "2026-11-24 10:00:00.000000+00" });
    await queueEmail(store, scheduled, "fresh");
    expect((await store.readStream(emailStream(scheduled.content.emailId))).map((e) => e.type)).toEqual(["EmailScheduled"]);
  });
});
