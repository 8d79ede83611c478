import { describe, expect, it } from "vitest";
import type { EmailEvent } from "../../email/events.js";
import { isWebhookEventType, payloadBuilderFor, webhookEventTypes } from "./index.js";

const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const templateId = "11111111-1111-4111-8111-111111111111";
const context = { messageIdOf: (id: string) => `<${id}@tidings.test>` };

const queued: EmailEvent = {
  type: "EmailQueued",
  data: {
    emailId,
    teamId: "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f",
    from: "Acme <hello@acme.test>",
    to: ["a@example.com"],
    cc: ["c@example.com"],
    bcc: [],
    replyTo: [],
    subject: "Hi",
    html: "<p>Hi</p>",
    text: "Hi",
    headers: {},
    tags: [
      { name: "category", value: "welcome" },
      { name: "plan", value: "pro" },
    ],
    attachments: [],
    templateId,
    templateVersion: 1,
    domainId: null,
    createdAt: "2026-11-23 10:00:00.123456+00",
  },
};
const sent: EmailEvent = { type: "EmailSent", data: { emailId, sentAt: "2026-11-23 10:00:01.000000+00" } };

const build = (event: EmailEvent, history: EmailEvent[]) => payloadBuilderFor("email", event.type)?.(event, history, context) ?? null;

const base = {
  email_id: emailId,
  created_at: "2026-11-23T10:00:00.123Z",
  from: "Acme <hello@acme.test>",
  to: ["a@example.com"],
  subject: "Hi",
  message_id: `<${emailId}@tidings.test>`,
  template_id: templateId,
  tags: { category: "welcome", plan: "pro" },
};

describe("email webhook payloads", () => {
  it("builds email.sent with tags as a name → value map and times in ISO 8601", () =>
    expect(build(sent, [queued, sent])).toEqual({ type: "email.sent", created_at: "2026-11-23T10:00:01.000Z", data: base }));

  it("builds email.bounced with its bounce object", () => {
    const bounced: EmailEvent = {
      type: "EmailBounced",
      data: {
        emailId,
        teamId: queued.data.teamId,
        recipients: ["a@example.com"],
        bounce: { type: "permanent", message: "mailbox unknown" },
        bouncedAt: "2026-11-23 10:00:02.000000+00",
        response: "550 5.1.1 no such user",
        code: 550,
      },
    };
    expect(build(bounced, [queued, bounced])).toEqual({
      type: "email.bounced",
      created_at: "2026-11-23T10:00:02.000Z",
      data: {
        ...base,
        bounce: { message: "mailbox unknown", type: "Permanent", subType: "General", diagnosticCode: ["550 5.1.1 no such user"] },
      },
    });
  });

  it("builds email.failed with its reason, and email.suppressed", () => {
    const failed: EmailEvent = {
      type: "EmailFailed",
      data: { emailId, reason: "relay refused", failedAt: "2026-11-23 10:00:02.000000+00", response: null, code: null },
    };
    expect(build(failed, [queued, failed])?.data).toEqual({ ...base, failed: { reason: "relay refused" } });
    const suppressed: EmailEvent = {
      type: "EmailSuppressed",
      data: { emailId, recipients: ["a@example.com"], suppressedAt: "2026-11-23 10:00:00.200000+00" },
    };
    expect(build(suppressed, [queued, suppressed])?.data.suppressed).toEqual({
      message: "On the team's suppression list: a@example.com.",
      type: "OnAccountSuppressionList",
    });
    const bounced: EmailEvent = { type: "EmailSuppressed", data: { ...suppressed.data, reason: "previous_bounce" } };
    expect(build(bounced, [queued, bounced])?.data.suppressed).toMatchObject({
      type: "OnAccountSuppressionList",
      reason: "previous_bounce",
    });
  });

  it("builds email.scheduled, email.delivered and email.delivery_delayed", () => {
    const { ...content } = queued.data;
    const scheduled: EmailEvent = { type: "EmailScheduled", data: { ...content, scheduledAt: "2026-11-24 10:00:00.000000+00" } };
    expect(build(scheduled, [scheduled])?.type).toBe("email.scheduled");
    const delivered: EmailEvent = {
      type: "EmailDelivered",
      data: { emailId, deliveredAt: "2026-11-23 10:00:03.000000+00", response: "250 ok", code: 250 },
    };
    expect(build(delivered, [queued, sent, delivered])).toEqual({
      type: "email.delivered",
      created_at: "2026-11-23T10:00:03.000Z",
      data: base,
    });
    const delayed: EmailEvent = {
      type: "EmailDeliveryDelayed",
      data: { emailId, attempt: 1, nextAttemptAt: null, delayedAt: "2026-11-23 10:00:04.000000+00", response: "451 later", code: 451 },
    };
    expect(build(delayed, [queued, delayed])?.type).toBe("email.delivery_delayed");
  });

  it("fires one email.delivered for an email delivered to its recipients over two attempts, and one email.bounced", () => {
    const reply = { response: "250 ok", code: 250 };
    const first: EmailEvent = {
      type: "EmailDelivered",
      data: { emailId, deliveredAt: "2026-11-23 10:00:03.000000+00", ...reply, recipients: ["a@example.com"] },
    };
    const delayed: EmailEvent = {
      type: "EmailDeliveryDelayed",
      data: {
        emailId,
        attempt: 1,
        nextAttemptAt: "2026-11-23 10:01:03.000000+00",
        delayedAt: "2026-11-23 10:00:03.000000+00",
        response: "451 later",
        code: 451,
        recipients: ["c@example.com"],
      },
    };
    const second: EmailEvent = {
      type: "EmailDelivered",
      data: { emailId, deliveredAt: "2026-11-23 10:01:04.000000+00", ...reply, recipients: ["c@example.com"] },
    };
    expect(build(first, [queued, sent, first])?.type).toBe("email.delivered");
    expect(build(second, [queued, sent, first, delayed, second])).toBeNull();
    const bounce = (recipient: string): EmailEvent => ({
      type: "EmailBounced",
      data: {
        emailId,
        teamId: queued.data.teamId,
        recipients: [recipient],
        bounce: { type: "permanent", message: "no" },
        bouncedAt: "2026-11-23 10:00:02.000000+00",
        response: "550 no",
        code: 550,
      },
    });
    expect(build(bounce("c@example.com"), [queued, bounce("a@example.com"), delayed, bounce("c@example.com")])).toBeNull();
  });

  it("builds email.clicked with the reference's click object, and email.opened, each flagged machine or not", () => {
    const clicked: EmailEvent = {
      type: "EmailClicked",
      data: {
        emailId,
        link: "https://acme.test/a",
        linkIndex: 0,
        clickedAt: "2026-11-23 10:05:00.000000+00",
        ipAddress: "203.0.113.7",
        userAgent: "Firefox",
        machine: false,
        machineReason: null,
      },
    };
    expect(build(clicked, [queued, sent, clicked])).toEqual({
      type: "email.clicked",
      created_at: "2026-11-23T10:05:00.000Z",
      data: {
        ...base,
        click: { ipAddress: "203.0.113.7", link: "https://acme.test/a", timestamp: "2026-11-23T10:05:00.000Z", userAgent: "Firefox" },
        machine: false,
      },
    });
    const opened: EmailEvent = {
      type: "EmailOpened",
      data: {
        emailId,
        openedAt: "2026-11-23 10:04:00.000000+00",
        ipAddress: "17.1.2.3",
        userAgent: "Mozilla/5.0",
        machine: true,
        machineReason: "apple_mail_privacy_protection",
      },
    };
    expect(build(opened, [queued, sent, opened])).toMatchObject({
      type: "email.opened",
      data: { ...base, machine: true, open: { ipAddress: "17.1.2.3" } },
    });
  });

  it("leaves out tags and template_id when the email has none", () => {
    const plain: EmailEvent = { type: "EmailQueued", data: { ...queued.data, tags: [], templateId: null, templateVersion: null } };
    const data = build(sent, [plain, sent])?.data;
    expect(data).not.toHaveProperty("tags");
    expect(data).not.toHaveProperty("template_id");
  });

  it("carries broadcast_id for an email a broadcast sent", () => {
    const broadcastId = "22222222-2222-4222-8222-222222222222";
    const fromBroadcast: EmailEvent = { type: "EmailQueued", data: { ...queued.data, broadcastId } };
    expect(build(sent, [fromBroadcast, sent])?.data).toEqual({ ...base, broadcast_id: broadcastId });
  });

  it("builds email.complained with the email's data, as of the complaint", () => {
    const complained: EmailEvent = {
      type: "EmailComplained",
      data: {
        emailId,
        teamId: queued.data.teamId,
        recipients: ["a@example.com"],
        feedbackType: "abuse",
        reportedBy: null,
        complainedAt: "2026-11-24 08:00:00.000000+00",
      },
    };
    expect(build(complained, [queued, sent, complained])).toEqual({
      type: "email.complained",
      created_at: "2026-11-24T08:00:00.000Z",
      data: base,
    });
  });

  it("builds email.received from an inbound stream, without the body", () => {
    const inboundId = "3f0a7d2e-5b1c-4e8f-9a6d-2c4b6e8f0a1c";
    const received = {
      type: "InboundEmailReceived",
      data: {
        inboundId,
        teamId: queued.data.teamId,
        from: "Ann <ann@elsewhere.test>",
        to: ["support@acme.test"],
        cc: ["cc@acme.test"],
        bcc: [],
        replyTo: [],
        receivedFor: ["support@acme.test", "sales@acme.test"],
        mailFrom: "ann@elsewhere.test",
        messageId: "<m1@elsewhere.test>",
        subject: "Help",
        raw: { blob: "a".repeat(64), size: 900 },
        attachments: [
          {
            id: templateId,
            filename: "a.pdf",
            contentType: "application/pdf",
            size: 10,
            contentId: null,
            disposition: "attachment",
            blob: "b".repeat(64),
          },
        ],
        receivedAt: "2026-11-24 09:00:00.000000+00",
      },
    };
    expect(payloadBuilderFor("inbound", received.type)?.(received, [received], context)).toEqual({
      type: "email.received",
      created_at: "2026-11-24T09:00:00.000Z",
      data: {
        email_id: inboundId,
        created_at: "2026-11-24T09:00:00.000Z",
        from: "Ann <ann@elsewhere.test>",
        to: ["support@acme.test"],
        cc: ["cc@acme.test"],
        bcc: [],
        received_for: ["support@acme.test", "sales@acme.test"],
        message_id: "<m1@elsewhere.test>",
        subject: "Help",
        attachments: [
          { id: templateId, filename: "a.pdf", content_type: "application/pdf", content_disposition: "attachment", content_id: null },
        ],
      },
    });
  });

  it("has no payload for events without a webhook type", () => {
    expect(payloadBuilderFor("email", "EmailQueued")).toBeUndefined();
    expect(payloadBuilderFor("email", "EmailCanceled")).toBeUndefined();
    expect(payloadBuilderFor("template", "TemplateCreated")).toBeUndefined();
  });

  it("knows the email, contact and domain types of docs/wire-compatibility.md §8.1", () => {
    expect(webhookEventTypes).toHaveLength(18);
    expect(["email.sent", "email.clicked", "contact.topics.updated", "domain.deleted"].every(isWebhookEventType)).toBe(true);
    expect(isWebhookEventType("email.queued")).toBe(false);
  });
});
