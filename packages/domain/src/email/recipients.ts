import { parseMailbox } from "./rules/address.js";
import type { EmailContent } from "./events.js";

/** How a recipient's delivery ended. A recipient with none of these is still pending. */
export type RecipientSettlement = "delivered" | "bounced" | "failed" | "suppressed";

/** Recipients are compared by bare address, lower-cased, as the suppression list compares them. */
export const recipientKey = (mailbox: string) => (parseMailbox(mailbox)?.address ?? mailbox).trim().toLowerCase();

/**
 * The SMTP envelope's recipients: every bare address of `to`, `cc` and `bcc`, each once (the first
 * spelling wins), in that order. The send path checked every mailbox already.
 */
export function envelopeRecipients(content: Pick<EmailContent, "to" | "cc" | "bcc">): string[] {
  const seen = new Set<string>();
  const recipients: string[] = [];
  for (const mailbox of [...content.to, ...content.cc, ...content.bcc]) {
    const key = recipientKey(mailbox);
    if (seen.has(key)) continue;
    seen.add(key);
    recipients.push(parseMailbox(mailbox)?.address ?? mailbox);
  }
  return recipients;
}
