import { describe, expect, it } from "vitest";
import { fold } from "../decider.js";
import { given } from "../testing/scenario.js";
import { anEmailContent } from "../testing/anEmailContent.js";
import { emailDecider, type EmailCommand } from "./decider.js";
import type { EmailEvent } from "./events.js";

const teamId = "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f";
const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const now = "2026-11-25 10:00:00.000000+00";

const single = anEmailContent({ emailId, teamId, createdAt: now });
const several = anEmailContent({
  emailId,
  teamId,
  createdAt: now,
  to: ["Ann <ann@example.test>", "bob@example.test"],
  cc: ["cy@example.test"],
});
const queued = (content = single): EmailEvent => ({ type: "EmailQueued", data: content });
const sent: EmailEvent = { type: "EmailSent", data: { emailId, sentAt: now } };
const delivered: EmailEvent = { type: "EmailDelivered", data: { emailId, deliveredAt: now, response: "250 OK", code: 250 } };

const report = (recipients: string[]): EmailCommand => ({
  type: "RecordEmailComplained",
  recipients,
  feedbackType: "abuse",
  reportedBy: "Yahoo!-Mail-Feedback/2.0",
  now,
});
const complained = (recipients: string[]): EmailEvent => ({
  type: "EmailComplained",
  data: { emailId, teamId, recipients, feedbackType: "abuse", reportedBy: "Yahoo!-Mail-Feedback/2.0", complainedAt: now },
});

describe("email decider: feedback-loop complaints", () => {
  it("blames the recipients a report names, as the envelope spells them", () =>
    given(emailDecider, [queued(several), sent, delivered])
      .when(report(["BOB@example.test", "stranger@example.test"]))
      .then([complained(["bob@example.test"])]));

  it("blames the only recipient when the provider redacted the report", () =>
    given(emailDecider, [queued(), sent, delivered])
      .when(report([]))
      .then([complained(["ann@example.test"])]));

  it("blames nobody for a redacted report about an email to several recipients, once", () => {
    given(emailDecider, [queued(several), sent, delivered])
      .when(report(["redacted@example.invalid"]))
      .then([complained([])]);
    given(emailDecider, [queued(several), sent, delivered, complained([])])
      .when(report([]))
      .then([]);
  });

  it("records a second report about the same recipient not at all, and one about another recipient", () => {
    given(emailDecider, [queued(several), sent, complained(["bob@example.test"])])
      .when(report(["bob@example.test"]))
      .then([]);
    given(emailDecider, [queued(several), sent, complained(["bob@example.test"])])
      .when(report(["Ann <ann@example.test>", "bob@example.test"]))
      .then([complained(["ann@example.test"])]);
  });

  it("leaves the email complained, after delivery has ended", () =>
    expect(fold(emailDecider, [queued(), sent, delivered, complained(["ann@example.test"])]).status).toBe("complained"));

  it("records nothing for a not-spam report", () =>
    given(emailDecider, [queued(), sent, delivered])
      .when({ ...report(["ann@example.test"]), feedbackType: "not-spam" } as EmailCommand)
      .then([]));

  it("ignores a report about an email that never went out, and knows no unknown email", () => {
    given(emailDecider, [queued()])
      .when(report(["ann@example.test"]))
      .then([]);
    given(emailDecider).when(report([])).thenError("not_found");
  });
});
