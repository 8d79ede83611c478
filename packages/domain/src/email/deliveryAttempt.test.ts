import { describe, expect, it } from "vitest";
import { fold } from "../decider.js";
import { given } from "../testing/scenario.js";
import { emailDecider, hasFinalOutcome, pendingRecipients, type EmailCommand } from "./decider.js";
import type { RecipientResult } from "./deliveryAttempt.js";
import { anEmailContent } from "../testing/anEmailContent.js";
import type { EmailEvent } from "./events.js";
import { envelopeRecipients } from "./recipients.js";

const teamId = "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f";
const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const now = "2026-11-23 10:00:00.000000+00";
const retryAt = "2026-11-23 10:01:00.000000+00";

const content = anEmailContent({
  emailId,
  teamId,
  to: ["Ann <ann@example.test>", "bob@example.test"],
  cc: ["cy@other.test"],
  createdAt: now,
});
const queued: EmailEvent = { type: "EmailQueued", data: content };

const ok = (recipient: string): RecipientResult => ({ recipient, kind: "delivered", code: 250, response: "250 OK: queued" });
const later = (recipient: string): RecipientResult => ({
  recipient,
  kind: "deferred",
  code: 451,
  response: `451 4.2.0 ${recipient} greylisted`,
});
const gone = (recipient: string): RecipientResult => ({
  recipient,
  kind: "bounced",
  code: 550,
  response: `550 5.1.1 ${recipient} no such user`,
});

const attempt = (results: RecipientResult[], n = 1, nextAttemptAt: string | null = retryAt): EmailCommand => ({
  type: "RecordDeliveryAttempt",
  results,
  attempt: n,
  nextAttemptAt,
  now,
});

const sent: EmailEvent = { type: "EmailSent", data: { emailId, sentAt: now } };
const delivered = (...recipients: string[]): EmailEvent => ({
  type: "EmailDelivered",
  data: { emailId, deliveredAt: now, response: "250 OK: queued", code: 250, recipients },
});
const delayed = (n: number, ...recipients: string[]): EmailEvent => ({
  type: "EmailDeliveryDelayed",
  data: {
    emailId,
    attempt: n,
    nextAttemptAt: retryAt,
    delayedAt: now,
    response: `451 4.2.0 ${recipients[0]} greylisted`,
    code: 451,
    recipients,
  },
});
const bounced = (...recipients: string[]): EmailEvent => ({
  type: "EmailBounced",
  data: {
    emailId,
    teamId,
    recipients,
    bounce: { type: "permanent", message: `550 5.1.1 ${recipients[0]} no such user` },
    bouncedAt: now,
    response: `550 5.1.1 ${recipients[0]} no such user`,
    code: 550,
  },
});

const [ann, bob, cy] = ["ann@example.test", "bob@example.test", "cy@other.test"];
const pendingAfter = (events: EmailEvent[]) => pendingRecipients(fold(emailDecider, events));

describe("email decider: per-recipient delivery", () => {
  it("sends to every envelope recipient first: to, cc and bcc as bare addresses, each once", () => {
    expect(pendingAfter([queued])).toEqual([ann, bob, cy]);
    expect(
      envelopeRecipients({ to: ["Ann <Ann@Example.test>"], cc: ["ann@example.test"], bcc: ["zed@example.test", "ZED@example.test"] }),
    ).toEqual(["Ann@Example.test", "zed@example.test"]);
  });

  it("records a partial deferral as delivered to some and delayed for the rest, shown delivery_delayed, and retries only the deferred", () => {
    const recorded = [sent, delivered(ann, cy), delayed(1, bob)];
    given(emailDecider, [queued])
      .when(attempt([ok(ann), later(bob), ok(cy)]))
      .then(recorded);
    const history = [queued, ...recorded];
    const state = fold(emailDecider, history);
    expect(state.status).toBe("delivery_delayed");
    expect(pendingRecipients(state)).toEqual([bob]);
    expect(hasFinalOutcome(state)).toBe(false);

    given(emailDecider, history)
      .when(attempt([ok(bob)], 2))
      .then([delivered(bob)]);
    const done = fold(emailDecider, [...history, delivered(bob)]);
    expect([done.status, hasFinalOutcome(done), pendingRecipients(done)]).toEqual(["delivered", true, []]);
  });

  it("records a partial bounce before the delivery, so the email shows delivered with the bounced address recorded", () => {
    given(emailDecider, [queued])
      .when(attempt([ok(ann), gone(bob), ok(cy)]))
      .then([sent, bounced(bob), delivered(ann, cy)]);
    const state = fold(emailDecider, [queued, sent, bounced(bob), delivered(ann, cy)]);
    expect([state.status, hasFinalOutcome(state)]).toEqual(["delivered", true]);
  });

  it("keeps a bounced recipient settled while another is deferred, and retries only the deferred one", () => {
    given(emailDecider, [queued, sent, delivered(ann)])
      .when(attempt([gone(bob), later(cy)]))
      .then([bounced(bob), delayed(1, cy)]);
    expect(pendingAfter([queued, sent, delivered(ann), bounced(bob), delayed(1, cy)])).toEqual([cy]);
  });

  it("delays every recipient when all are deferred, and retries them all", () => {
    given(emailDecider, [queued])
      .when(attempt([later(ann), later(bob), later(cy)]))
      .then([delayed(1, ann, bob, cy)]);
    expect(pendingAfter([queued, delayed(1, ann, bob, cy)])).toEqual([ann, bob, cy]);
  });

  it("bounces an email whose every recipient bounced", () =>
    given(emailDecider, [queued])
      .when(attempt([gone(ann), gone(bob), gone(cy)]))
      .then([bounced(ann, bob, cy)]));

  it("fails the recipients still deferred when the retry window is over, after those delivered earlier", () =>
    given(emailDecider, [queued, sent, delivered(ann, cy), delayed(1, bob)])
      .when(attempt([later(bob)], 2, null))
      .then([
        {
          type: "EmailFailed",
          data: {
            emailId,
            reason: `deferred for 24 hours: 451 4.2.0 ${bob} greylisted`,
            failedAt: now,
            response: `451 4.2.0 ${bob} greylisted`,
            code: 451,
            recipients: [bob],
          },
        },
      ]));

  it("appends nothing for a redelivered attempt: its deliveries are settled and its deferral is recorded", () =>
    given(emailDecider, [queued, sent, delivered(ann, cy), delayed(1, bob)])
      .when(attempt([ok(ann), later(bob), ok(cy)]))
      .then([]));

  it("sends nothing and records nothing for a message redelivered after the final outcome", () => {
    const history = [queued, sent, delivered(ann, cy), delayed(1, bob), bounced(bob)];
    expect(pendingAfter(history)).toEqual([]);
    expect(hasFinalOutcome(fold(emailDecider, history))).toBe(true);
    given(emailDecider, history)
      .when(attempt([ok(bob)], 2))
      .then([]);
  });

  it("folds outcomes recorded before they named recipients as the whole email's", () => {
    const old = (event: EmailEvent): EmailEvent => {
      const { recipients: _, ...data } = event.data as { recipients?: string[] };
      return { ...event, data } as EmailEvent;
    };
    expect(pendingAfter([queued, old(delayed(1, ann))])).toEqual([ann, bob, cy]);
    expect(pendingAfter([queued, old(delayed(1, ann)), sent, old(delivered(ann))])).toEqual([]);
    const failedOld: EmailEvent = { type: "EmailFailed", data: { emailId, reason: "x", failedAt: now, response: null, code: null } };
    expect(hasFinalOutcome(fold(emailDecider, [queued, failedOld]))).toBe(true);
  });

  it("matches a bounce recorded with a display name or another case to its envelope recipient", () =>
    expect(pendingAfter([queued, sent, delivered(ann, cy), bounced("Bob <BOB@example.test>")])).toEqual([]));

  it("stops the rest of the email when a pending recipient is found suppressed", () =>
    expect(
      pendingAfter([queued, sent, delivered(ann), { type: "EmailSuppressed", data: { emailId, recipients: [cy], suppressedAt: now } }]),
    ).toEqual([]));
});
