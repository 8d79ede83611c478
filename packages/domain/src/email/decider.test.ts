import { describe, it } from "vitest";
import { given, now, otherTeam, teamId } from "../testing/scenario.js";
import { emailDecider, type EmailCommand } from "./decider.js";
import { anEmailContent } from "../testing/anEmailContent.js";
import type { EmailEvent } from "./events.js";

const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const later = "2026-11-24 10:00:00.000000+00";

const content = anEmailContent({ emailId, teamId, createdAt: now });

const send = (overrides: Partial<Extract<EmailCommand, { type: "SendEmail" }>> = {}): EmailCommand => ({
  type: "SendEmail",
  content,
  scheduledAt: null,
  suppressed: [],
  now,
  ...overrides,
});

const queued: EmailEvent = { type: "EmailQueued", data: content };
const scheduled: EmailEvent = { type: "EmailScheduled", data: { ...content, scheduledAt: later } };
const sent: EmailEvent = { type: "EmailSent", data: { emailId, sentAt: now } };
const reply = { response: "250 2.0.0 OK", code: 250 };
const delivered: EmailEvent = { type: "EmailDelivered", data: { emailId, deliveredAt: now, ...reply } };
const bounced: EmailEvent = {
  type: "EmailBounced",
  data: {
    emailId,
    teamId,
    recipients: ["ann@example.test"],
    bounce: { type: "permanent", message: "550 no such user" },
    bouncedAt: now,
    response: "550 no such user",
    code: 550,
  },
};
const delayed = (attempt: number): EmailEvent => ({
  type: "EmailDeliveryDelayed",
  data: { emailId, attempt, nextAttemptAt: later, delayedAt: now, response: "451 try later", code: 451 },
});

describe("email decider: sending", () => {
  it("queues an email sent now", () => given(emailDecider).when(send()).then([queued]));

  it("schedules an email with a future time", () =>
    given(emailDecider)
      .when(send({ scheduledAt: later }))
      .then([scheduled]));

  it("treats a repeated send of the same id as done", () => given(emailDecider, [queued]).when(send()).then([]));

  it("records a send to a suppressed recipient as suppressed in the same append", () =>
    given(emailDecider)
      .when(send({ suppressed: [{ email: "ann@example.test", origin: "complaint" }] }))
      .then([
        queued,
        { type: "EmailSuppressed", data: { emailId, recipients: ["ann@example.test"], suppressedAt: now, reason: "previous_complaint" } },
      ]));
});

describe("email decider: reschedule and cancel", () => {
  const reschedule: EmailCommand = { type: "RescheduleEmail", teamId, scheduledAt: "2026-11-25 10:00:00.000000+00", now };
  const cancel: EmailCommand = { type: "CancelEmail", teamId, now };

  it("reschedules a scheduled email", () =>
    given(emailDecider, [scheduled])
      .when(reschedule)
      .then([{ type: "EmailRescheduled", data: { emailId, scheduledAt: "2026-11-25 10:00:00.000000+00", rescheduledAt: now } }]));

  it("records nothing when rescheduled to the same time", () =>
    given(emailDecider, [scheduled])
      .when({ ...reschedule, scheduledAt: later })
      .then([]));

  it("refuses to reschedule an email that is not scheduled", () =>
    given(emailDecider, [queued])
      .when(reschedule)
      .thenError("validation_error", /cannot be rescheduled: it is queued/));

  it("refuses to reschedule a canceled email", () =>
    given(emailDecider, [scheduled, { type: "EmailCanceled", data: { emailId, canceledAt: now } }])
      .when(reschedule)
      .thenError("validation_error", /it is canceled/));

  it("cancels a queued email of a canceled broadcast before its first attempt, and not after", () => {
    const canceled: EmailEvent = { type: "EmailCanceled", data: { emailId, canceledAt: now } };
    given(emailDecider, [queued]).when({ type: "RecordEmailCanceled", now }).then([canceled]);
    given(emailDecider, [queued, sent]).when({ type: "RecordEmailCanceled", now }).then([]);
    given(emailDecider, [queued, canceled]).when({ type: "RecordEmailCanceled", now }).then([]);
  });

  it("cancels a scheduled email", () =>
    given(emailDecider, [scheduled])
      .when(cancel)
      .then([{ type: "EmailCanceled", data: { emailId, canceledAt: now } }]));

  it("treats a second cancel as done", () =>
    given(emailDecider, [scheduled, { type: "EmailCanceled", data: { emailId, canceledAt: now } }])
      .when(cancel)
      .then([]));

  it("refuses to cancel an email already sent", () =>
    given(emailDecider, [scheduled, sent])
      .when(cancel)
      .thenError("validation_error", /cannot be canceled: it is sent/));

  it("does not show another team's email", () =>
    given(emailDecider, [scheduled])
      .when({ ...cancel, teamId: otherTeam })
      .thenError("not_found", "Email not found"));

  it("does not find an email that does not exist", () => given(emailDecider).when(cancel).thenError("not_found", "Email not found"));
});

describe("email decider: delivery outcomes", () => {
  it("records sent once", () => {
    given(emailDecider, [queued]).when({ type: "RecordEmailSent", now }).then([sent]);
    given(emailDecider, [queued, sent]).when({ type: "RecordEmailSent", now }).then([]);
  });

  const attempt = (kind: "delivered" | "deferred" | "bounced", reply: { response: string; code: number }, n = 1): EmailCommand => ({
    type: "RecordDeliveryAttempt",
    results: [{ recipient: "ann@example.test", kind, ...reply }],
    attempt: n,
    nextAttemptAt: later,
    now,
  });
  const one = { recipients: ["ann@example.test"] };
  const deliveredToAnn: EmailEvent = { type: "EmailDelivered", data: { ...delivered.data, ...one } } as EmailEvent;

  it("records sent and delivered together when the transport accepted at once", () =>
    given(emailDecider, [queued]).when(attempt("delivered", reply)).then([sent, deliveredToAnn]));

  it("records delivered after sent", () => given(emailDecider, [queued, sent]).when(attempt("delivered", reply)).then([deliveredToAnn]));

  it("sends a scheduled email when its timer fires", () =>
    given(emailDecider, [scheduled]).when(attempt("delivered", reply)).then([sent, deliveredToAnn]));

  it("records each delay attempt once", () => {
    const delayedAnn = (n: number) => ({ type: "EmailDeliveryDelayed", data: { ...delayed(n).data, ...one } }) as EmailEvent;
    const deferral = attempt("deferred", { response: "451 try later", code: 451 }, 2);
    given(emailDecider, [queued, delayed(1)])
      .when(deferral)
      .then([delayedAnn(2)]);
    given(emailDecider, [queued, delayed(1), delayedAnn(2)])
      .when(deferral)
      .then([]);
  });

  it("records a bounce with the team, for the suppression list", () =>
    given(emailDecider, [queued])
      .when(attempt("bounced", { response: "550 no such user", code: 550 }))
      .then([bounced]));

  it("records a failure", () =>
    given(emailDecider, [queued, delayed(1)])
      .when({ type: "RecordEmailFailed", reason: "TLS required", response: null, code: null, now })
      .then([
        {
          type: "EmailFailed",
          data: { emailId, reason: "TLS required", failedAt: now, response: null, code: null, recipients: ["ann@example.test"] },
        },
      ]));

  const outcomes: [string, EmailCommand][] = [
    ["RecordEmailSent", { type: "RecordEmailSent", now }],
    ["a delivery", attempt("delivered", reply)],
    ["a deferral", attempt("deferred", reply, 9)],
    ["a bounce", attempt("bounced", reply)],
    ["RecordEmailFailed", { type: "RecordEmailFailed", reason: "x", response: null, code: null, now }],
    ["RecordEmailSuppressed", { type: "RecordEmailSuppressed", suppressed: [], now }],
  ];
  const finals: [string, EmailEvent[]][] = [
    ["delivered", [queued, sent, delivered]],
    ["bounced", [queued, bounced]],
    ["canceled", [scheduled, { type: "EmailCanceled", data: { emailId, canceledAt: now } }]],
    ["suppressed", [queued, { type: "EmailSuppressed", data: { emailId, recipients: [], suppressedAt: now } }]],
  ];
  for (const [status, history] of finals)
    for (const [name, outcome] of outcomes)
      it(`appends nothing for ${name} once the email is ${status}`, () => given(emailDecider, history).when(outcome).then([]));

  it("does not record an outcome for an unknown email", () =>
    given(emailDecider).when({ type: "RecordEmailSent", now }).thenError("not_found"));
});
