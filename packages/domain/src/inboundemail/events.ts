import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";
import { messageMailboxes } from "../email/events.js";

/** An attachment of a received message; its bytes are in the blob store, like a sent one's (docs/architecture.md §4). */
export const InboundAttachment = z.object({
  id: z.uuid(),
  filename: z.string().nullable(),
  contentType: z.string(),
  size: z.number().int().nonnegative(),
  contentId: z.string().nullable(),
  disposition: z.string().nullable(),
  blob: z.string().regex(/^[0-9a-f]{64}$/),
});
export type InboundAttachment = z.infer<typeof InboundAttachment>;

/**
 * `email.received`: the inbound SMTP listener accepted a message for a receiving domain of the team. The
 * message itself stays in the blob store (`raw`); the event keeps what lists, webhooks and routing need,
 * and GET parses the body from the raw bytes.
 */
export const InboundEmailReceived = eventSchema("InboundEmailReceived", {
  inboundId: z.uuid(),
  teamId: z.uuid(),
  /** The headers' mailboxes. */
  ...messageMailboxes,
  /** The envelope recipients (RCPT TO) of this team's domains that the message was accepted for. */
  receivedFor: z.array(z.string()),
  /** The envelope sender (MAIL FROM); null for a bounce's empty one. */
  mailFrom: z.string().nullable(),
  messageId: z.string().nullable(),
  subject: z.string(),
  raw: z.object({ blob: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() }),
  attachments: z.array(InboundAttachment),
  receivedAt: z.string(),
});

export const InboundEmailEvent = eventUnion([InboundEmailReceived]);
export type InboundEmailEvent = z.infer<typeof InboundEmailEvent>;
export type InboundEmail = z.infer<typeof InboundEmailReceived>["data"];
