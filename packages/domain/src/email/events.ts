import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";
import { suppressionReasons } from "../suppression/events.js";

export const emailStream = (emailId: string) => `email-${emailId}`;

export const EmailTag = z.object({ name: z.string(), value: z.string() });
export type EmailTag = z.infer<typeof EmailTag>;

/** Attachment bytes live in the blob store, addressed by sha256 (docs/architecture.md §4: no large payloads in events). */
export const EmailAttachment = z.object({
  id: z.uuid(),
  filename: z.string(),
  contentType: z.string(),
  size: z.number().int().nonnegative(),
  contentId: z.string().nullable(),
  disposition: z.enum(["inline", "attachment"]),
  blob: z.string().regex(/^[0-9a-f]{64}$/),
});
export type EmailAttachment = z.infer<typeof EmailAttachment>;

/** Who a message is from and to, sent or received: mailboxes as written (`Ada <ada@example.com>`). */
export const messageMailboxes = {
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  replyTo: z.array(z.string()),
};

/** Everything the delivery saga needs, so it never reads a read model to send. */
const emailContent = {
  emailId: z.uuid(),
  teamId: z.uuid(),
  ...messageMailboxes,
  subject: z.string(),
  html: z.string().nullable(),
  /** Already generated from html unless the caller sent "" (then null). */
  text: z.string().nullable(),
  headers: z.record(z.string(), z.string()),
  tags: z.array(EmailTag),
  attachments: z.array(EmailAttachment),
  templateId: z.uuid().nullable(),
  templateVersion: z.number().int().nullable(),
  domainId: z.uuid().nullable(),
  createdAt: z.string(),
  /**
   * Set on an email submitted over SMTP: the message as the client wrote it, in the blob store like an
   * attachment (the hash in clear, the bytes erased and expired with the email's content). Delivery signs
   * and sends these bytes instead of composing a message from the fields; absent on every other email.
   */
  raw: z.object({ blob: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() }).optional(),
  /** Set on the emails a broadcast fans out to (webhooks carry it as `broadcast_id`); absent on every other email. */
  broadcastId: z.uuid().optional(),
};

export const EmailQueued = eventSchema("EmailQueued", emailContent);
export const EmailScheduled = eventSchema("EmailScheduled", { ...emailContent, scheduledAt: z.string() });
export type EmailContent = z.infer<typeof EmailQueued>["data"];

export const EmailRescheduled = eventSchema("EmailRescheduled", { emailId: z.uuid(), scheduledAt: z.string(), rescheduledAt: z.string() });

export const EmailCanceled = eventSchema("EmailCanceled", { emailId: z.uuid(), canceledAt: z.string() });

/** The SMTP server's reply, kept verbatim for support and webhooks. */
const smtpReply = { response: z.string(), code: z.number().int().nullable() };

/**
 * The envelope recipients an outcome is about: one delivery attempt can deliver to some, defer others and
 * bounce the rest, and a retry goes only to those still pending. Added as an optional field, not as a new
 * version with an upcaster (docs/architecture.md §4), because its absence already means what events recorded without it
 * meant: the email had one outcome, for every recipient not yet settled, and `evolve` folds it so. An
 * upcaster could not fill it in anyway: the recipients are in the stream's EmailQueued, not in the event.
 */
const aboutRecipients = { recipients: z.array(z.string()).optional() };

export const EmailSent = eventSchema("EmailSent", { emailId: z.uuid(), sentAt: z.string() });

export const EmailDelivered = eventSchema("EmailDelivered", {
  emailId: z.uuid(),
  deliveredAt: z.string(),
  ...smtpReply,
  ...aboutRecipients,
});

export const EmailDeliveryDelayed = eventSchema("EmailDeliveryDelayed", {
  emailId: z.uuid(),
  attempt: z.number().int().positive(),
  nextAttemptAt: z.string().nullable(),
  delayedAt: z.string(),
  ...smtpReply,
  ...aboutRecipients,
});

/**
 * Each recipient's keyed hash, in the order of `recipients`. The sealing store adds it (docs/privacy.md), in
 * clear, so that the suppression a bounce or complaint causes outlives the address's erasure; events
 * recorded without the sealing store lack it.
 */
const recipientHashes = { recipientHashes: z.array(z.string()).optional() };

export const EmailBounced = eventSchema("EmailBounced", {
  emailId: z.uuid(),
  teamId: z.uuid(),
  /** The addresses the bounce is about: a hard bounce puts them on the team's suppression list. */
  recipients: z.array(z.string()),
  ...recipientHashes,
  bounce: z.object({ type: z.enum(["permanent", "transient", "undetermined"]), message: z.string() }),
  bouncedAt: z.string(),
  ...smtpReply,
});

export const EmailFailed = eventSchema("EmailFailed", {
  emailId: z.uuid(),
  reason: z.string(),
  failedAt: z.string(),
  response: z.string().nullable(),
  code: z.number().int().nullable(),
  ...aboutRecipients,
});

/**
 * The rest of the email is not sent: every recipient still pending is settled; `recipients` are the ones on
 * the list, and `reason` how they got there (`suppressionReason`). Absent on events recorded before it.
 */
export const EmailSuppressed = eventSchema("EmailSuppressed", {
  emailId: z.uuid(),
  recipients: z.array(z.string()),
  suppressedAt: z.string(),
  reason: z.enum(suppressionReasons).nullable().optional(),
});

/** Who opened or clicked, as the tracking request showed it; `machine` flags a proxy or scanner (`classifyEngagement`). */
const engagement = {
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  machine: z.boolean(),
  /** Why it was taken for a machine (`apple_mail_privacy_protection`, `click_within_2s_of_delivery`, …); null for a person. */
  machineReason: z.string().nullable(),
};

/** `email.opened`: the tracking pixel was loaded. Every load is one event: a person may open an email many times. */
export const EmailOpened = eventSchema("EmailOpened", { emailId: z.uuid(), openedAt: z.string(), ...engagement });

/** `email.clicked`: a rewritten link was followed; `linkIndex` counts the html's tracked links from 0. */
export const EmailClicked = eventSchema("EmailClicked", {
  emailId: z.uuid(),
  link: z.string(),
  linkIndex: z.number().int().nonnegative(),
  clickedAt: z.string(),
  ...engagement,
});

/**
 * `email.complained`: a mailbox provider's feedback loop reported the email as unwanted (an ARF report,
 * RFC 5965, taken in by the inbound SMTP listener). `recipients` are the ones it blames, and each goes on
 * the team's suppression list; a redacted report can blame nobody.
 */
export const EmailComplained = eventSchema("EmailComplained", {
  emailId: z.uuid(),
  teamId: z.uuid(),
  recipients: z.array(z.string()),
  ...recipientHashes,
  feedbackType: z.string(),
  reportedBy: z.string().nullable(),
  complainedAt: z.string(),
});

export const EmailEvent = eventUnion([
  EmailQueued,
  EmailScheduled,
  EmailRescheduled,
  EmailCanceled,
  EmailSent,
  EmailDelivered,
  EmailDeliveryDelayed,
  EmailBounced,
  EmailFailed,
  EmailSuppressed,
  EmailOpened,
  EmailClicked,
  EmailComplained,
]);
export type EmailEvent = z.infer<typeof EmailEvent>;
export type EmailEventType = EmailEvent["type"];
