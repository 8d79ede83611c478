import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

/**
 * One stream per shared email, sent or received (`emailshare-<email id>`): every link made for it and
 * every revocation. Kept apart from the email's own stream, whose consumers (delivery, webhooks, the
 * emails read model) have nothing to do with who may look at it.
 */
export const emailShareStream = (emailId: string) => `emailshare-${emailId}`;

/** What was shared: a sent email (`email-<id>`) or a received one (`inbound-<id>`). */
export const SharedEmailSource = z.enum(["sent", "received"]);
export type SharedEmailSource = z.infer<typeof SharedEmailSource>;

/** A link to the email was made; it shows the email to anyone holding it until `expiresAt`, unless revoked first. */
export const EmailShared = eventSchema("EmailShared", {
  shareId: z.uuid(),
  emailId: z.uuid(),
  teamId: z.uuid(),
  source: SharedEmailSource,
  sharedAt: z.string(),
  expiresAt: z.string(),
});

/** The link stops working before its expiry. */
export const EmailShareRevoked = eventSchema("EmailShareRevoked", {
  shareId: z.uuid(),
  emailId: z.uuid(),
  teamId: z.uuid(),
  revokedAt: z.string(),
});

export const EmailShareEvent = eventUnion([EmailShared, EmailShareRevoked]);
export type EmailShareEvent = z.infer<typeof EmailShareEvent>;
