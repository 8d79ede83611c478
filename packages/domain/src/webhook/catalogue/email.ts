import type { EmailContent, EmailEvent } from "../../email/events.js";
import {
  isoTime,
  type PayloadBuilder,
  type PayloadContext,
  type SourceEvent,
  type WebhookEventCategory,
  type WebhookPayload,
} from "./category.js";

type Data<Type extends EmailEvent["type"]> = Extract<EmailEvent, { type: Type }>["data"];

/** What the email was created with: its first EmailQueued or EmailScheduled in the history. */
function contentOf(history: SourceEvent[]): EmailContent | undefined {
  const created = history.find((event) => event.type === "EmailQueued" || event.type === "EmailScheduled");
  return created?.data as EmailContent | undefined;
}

/** The `data` every email type shares (docs/wire-compatibility.md §8.2): tags as a name → value map. */
function emailData(content: EmailContent, context: PayloadContext): Record<string, unknown> {
  return {
    email_id: content.emailId,
    created_at: isoTime(content.createdAt),
    from: content.from,
    to: content.to,
    subject: content.subject,
    message_id: context.messageIdOf(content.emailId),
    ...(content.broadcastId ? { broadcast_id: content.broadcastId } : {}),
    ...(content.templateId ? { template_id: content.templateId } : {}),
    ...(content.tags.length > 0 ? { tags: Object.fromEntries(content.tags.map((tag) => [tag.name, tag.value])) } : {}),
  };
}

/**
 * A builder for one email event: its webhook type, its time, and what it adds to the shared data.
 * `oncePerEmail`: an outcome recorded per recipient (delivered to some now, to the others on a retry) is
 * one webhook for the email, on its first event, as the payload is the email's and names no recipient.
 */
function emailPayload<Type extends EmailEvent["type"]>(
  type: string,
  at: (data: Data<Type>) => string,
  extra: (data: Data<Type>) => Record<string, unknown> = () => ({}),
  { oncePerEmail = false } = {},
): PayloadBuilder {
  return (event, history, context): WebhookPayload | null => {
    const content = contentOf(history);
    if (!content) return null;
    if (oncePerEmail && history.findIndex((e) => e.type === event.type) < history.length - 1) return null;
    const data = event.data as Data<Type>;
    return { type, created_at: isoTime(at(data)), data: { ...emailData(content, context), ...extra(data) } };
  };
}

const bounceTypes = {
  permanent: ["Permanent", "General"],
  transient: ["Transient", "General"],
  undetermined: ["Undetermined", "Undetermined"],
} as const;

/**
 * Email types (docs/wire-compatibility.md §8.1) and what emits them. `email.complained` comes from a feedback-loop report;
 * `email.received` from inbound mail, whose streams are a category of their own (`inbound.ts`).
 * Opens and clicks carry `machine` (a privacy proxy or link scanner, `classifyEngagement`); a click has
 * the reference's `click` object, an open the same shape as `open`.
 */
export const emailWebhookEvents: WebhookEventCategory = {
  streamCategory: "email",
  types: [
    "email.sent",
    "email.scheduled",
    "email.delivered",
    "email.delivery_delayed",
    "email.complained",
    "email.bounced",
    "email.opened",
    "email.clicked",
    "email.received",
    "email.failed",
    "email.suppressed",
  ],
  payloads: {
    EmailScheduled: emailPayload<"EmailScheduled">("email.scheduled", (d) => d.createdAt),
    EmailSent: emailPayload<"EmailSent">("email.sent", (d) => d.sentAt),
    EmailDelivered: emailPayload<"EmailDelivered">("email.delivered", (d) => d.deliveredAt, undefined, { oncePerEmail: true }),
    EmailDeliveryDelayed: emailPayload<"EmailDeliveryDelayed">("email.delivery_delayed", (d) => d.delayedAt),
    EmailBounced: emailPayload<"EmailBounced">(
      "email.bounced",
      (d) => d.bouncedAt,
      (d) => {
        const [type, subType] = bounceTypes[d.bounce.type];
        return { bounce: { message: d.bounce.message, type, subType, diagnosticCode: [d.response] } };
      },
      { oncePerEmail: true },
    ),
    EmailFailed: emailPayload<"EmailFailed">(
      "email.failed",
      (d) => d.failedAt,
      (d) => ({ failed: { reason: d.reason } }),
      { oncePerEmail: true },
    ),
    EmailSuppressed: emailPayload<"EmailSuppressed">(
      "email.suppressed",
      (d) => d.suppressedAt,
      (d) => ({
        suppressed: {
          message: `On the team's suppression list: ${d.recipients.join(", ")}.`,
          type: "OnAccountSuppressionList",
          ...(d.reason ? { reason: d.reason } : {}),
        },
      }),
    ),
    EmailComplained: emailPayload<"EmailComplained">("email.complained", (d) => d.complainedAt),
    EmailOpened: emailPayload<"EmailOpened">(
      "email.opened",
      (d) => d.openedAt,
      (d) => ({ open: { ipAddress: d.ipAddress, timestamp: isoTime(d.openedAt), userAgent: d.userAgent }, machine: d.machine }),
    ),
    EmailClicked: emailPayload<"EmailClicked">(
      "email.clicked",
      (d) => d.clickedAt,
      (d) => ({
        click: { ipAddress: d.ipAddress, link: d.link, timestamp: isoTime(d.clickedAt), userAgent: d.userAgent },
        machine: d.machine,
      }),
    ),
  },
};
