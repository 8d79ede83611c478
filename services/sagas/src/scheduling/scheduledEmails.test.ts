import { describe, expect, it } from "vitest";
import { fold, type EmailEvent } from "@tidings/domain";
import { anEmailContent } from "@tidings/domain/testing";
import { queueScheduledEmailDecider } from "./scheduledEmails.js";

const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const content = anEmailContent({ emailId });
const scheduled: EmailEvent = { type: "EmailScheduled", data: { ...content, scheduledAt: "2026-11-24 10:00:00.000000+00" } };
const rescheduled: EmailEvent = {
  type: "EmailRescheduled",
  data: { emailId, scheduledAt: "2026-11-25 10:00:00.000000+00", rescheduledAt: "2026-11-23 11:00:00.000000+00" },
};
const decide = (events: EmailEvent[]) =>
  queueScheduledEmailDecider.decide({ type: "QueueScheduledEmail" }, fold(queueScheduledEmailDecider, events));

describe("queueing a scheduled email when its timer fires", () => {
  it("appends EmailQueued with the data the email was scheduled with", () => {
    expect(decide([scheduled, rescheduled])).toEqual([{ type: "EmailQueued", data: content }]);
  });

  it("appends nothing once the email is queued, so a timer firing twice queues it once", () => {
    expect(decide([scheduled, { type: "EmailQueued", data: content }])).toEqual([]);
  });

  it("appends nothing for a canceled email", () => {
    expect(decide([scheduled, { type: "EmailCanceled", data: { emailId, canceledAt: "2026-11-23 12:00:00.000000+00" } }])).toEqual([]);
  });
});
