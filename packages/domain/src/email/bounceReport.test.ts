import { describe, expect, it } from "vitest";
import { fold } from "../decider.js";
import { given } from "../testing/scenario.js";
import { anEmailContent } from "../testing/anEmailContent.js";
import type { ReportedBounce } from "./bounceReport.js";
import { emailDecider, pendingRecipients, type EmailCommand } from "./decider.js";
import type { EmailEvent } from "./events.js";

const teamId = "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f";
const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const now = "2026-11-25 10:00:00.000000+00";

const content = anEmailContent({ emailId, teamId, createdAt: now, to: ["Ann <ann@example.test>", "bob@example.test"] });
const queued: EmailEvent = { type: "EmailQueued", data: content };
const sent: EmailEvent = { type: "EmailSent", data: { emailId, sentAt: now } };
const delivered: EmailEvent = { type: "EmailDelivered", data: { emailId, deliveredAt: now, response: "250 queued as X", code: 250 } };
const deferredBob: EmailEvent = {
  type: "EmailDeliveryDelayed",
  data: { emailId, attempt: 1, nextAttemptAt: now, delayedAt: now, response: "451 try later", code: 451, recipients: ["bob@example.test"] },
};
const deliveredAnn: EmailEvent = {
  type: "EmailDelivered",
  data: { emailId, deliveredAt: now, response: "250 OK", code: 250, recipients: ["ann@example.test"] },
};

const unknownUser: ReportedBounce = { recipient: "ANN@example.test", type: "permanent", message: "550 5.1.1 user unknown", code: 550 };
const report = (...bounces: ReportedBounce[]): EmailCommand => ({ type: "RecordBounceReport", bounces, now });
const bouncedAnn: EmailEvent = {
  type: "EmailBounced",
  data: {
    emailId,
    teamId,
    recipients: ["ann@example.test"],
    bounce: { type: "permanent", message: "550 5.1.1 user unknown" },
    bouncedAt: now,
    response: "550 5.1.1 user unknown",
    code: 550,
  },
};

describe("email decider: delivery-status reports", () => {
  it("bounces a recipient the relay had accepted, as the envelope spells it", () =>
    given(emailDecider, [queued, sent, delivered]).when(report(unknownUser)).then([bouncedAnn]));

  it("leaves the email bounced, its recipient settled as bounced", () => {
    const state = fold(emailDecider, [queued, sent, delivered, bouncedAnn]);
    expect(state.status).toBe("bounced");
    expect(state.status !== "none" && state.settled["ann@example.test"]).toBe("bounced");
  });

  it("counts a report that comes twice once, and ignores addresses the email was not sent to", () => {
    given(emailDecider, [queued, sent, delivered, bouncedAnn]).when(report(unknownUser)).then([]);
    given(emailDecider, [queued, sent, delivered])
      .when(report({ ...unknownUser, recipient: "stranger@example.test" }, unknownUser, unknownUser))
      .then([bouncedAnn]);
  });

  it("settles a recipient still waiting for a retry, so the retry does not go to it", () => {
    const history = [queued, sent, deliveredAnn, deferredBob];
    given(emailDecider, history)
      .when(report({ recipient: "bob@example.test", type: "transient", message: "4.4.7 gave up", code: null }))
      .then([
        {
          type: "EmailBounced",
          data: {
            emailId,
            teamId,
            recipients: ["bob@example.test"],
            bounce: { type: "transient", message: "4.4.7 gave up" },
            bouncedAt: now,
            response: "4.4.7 gave up",
            code: null,
          },
        },
      ]);
    const after = fold(emailDecider, [...history, { ...bouncedAnn, data: { ...bouncedAnn.data, recipients: ["bob@example.test"] } }]);
    expect(pendingRecipients(after)).toEqual([]);
  });

  it("asks for a report about an email whose attempt has no outcome yet to come again, and ignores one about an email that never went out", () => {
    given(emailDecider, [queued]).when(report(unknownUser)).thenError("not_yet_sent");
    given(emailDecider, [queued, { type: "EmailCanceled", data: { emailId, canceledAt: now } }])
      .when(report(unknownUser))
      .then([]);
  });
});
