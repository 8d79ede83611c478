import { DomainError } from "../decider.js";
import type { EmailStatus } from "./status.js";
import type { EmailEvent } from "./events.js";
import { recipientKey, type RecipientSettlement } from "./recipients.js";

/** One recipient's failure, as a delivery-status report (an asynchronous bounce) gives it. */
export interface ReportedBounce {
  recipient: string;
  type: "permanent" | "transient" | "undetermined";
  /** The report's diagnostic, else its status code. */
  message: string;
  /** The SMTP reply code in the diagnostic, when it has one. */
  code: number | null;
}

export interface BouncedEmail {
  emailId: string;
  teamId: string;
  status: EmailStatus;
  sent: boolean;
  recipients: string[];
  settled: Readonly<Record<string, RecipientSettlement>>;
}

/** Outcomes a later report cannot change: the recipient never got the message, or already bounced. */
const closed = new Set<RecipientSettlement>(["bounced", "failed", "suppressed"]);

/**
 * The EmailBounced events a delivery-status report records. A relay that answered 250 and then could not
 * deliver reports it later: that bounce overrides the `delivered` the relay's 250 recorded, as it is the
 * truth about the recipient's mailbox. One event per recipient, each with its own diagnostic; a recipient
 * the email was not sent to, or already bounced, records nothing, so a report that comes twice counts once.
 * A report about an email still waiting for its attempt's outcome is `not_yet_sent`: the relay's 250 may
 * not be recorded yet, and the report must be taken again later rather than lost.
 */
export function decideBounceReport(bounces: ReportedBounce[], now: string, email: BouncedEmail): EmailEvent[] | DomainError {
  if (!email.sent) {
    if (email.status === "queued" || email.status === "delivery_delayed")
      return new DomainError("not_yet_sent", "The email's delivery attempt has no outcome yet.");
    return [];
  }
  const envelope = new Map(email.recipients.map((r) => [recipientKey(r), r]));
  const seen = new Set<string>();
  const events: EmailEvent[] = [];
  for (const bounce of bounces) {
    const key = recipientKey(bounce.recipient);
    const recipient = envelope.get(key);
    const settled = email.settled[key];
    if (recipient === undefined || seen.has(key) || (settled !== undefined && closed.has(settled))) continue;
    seen.add(key);
    events.push({
      type: "EmailBounced",
      data: {
        emailId: email.emailId,
        teamId: email.teamId,
        recipients: [recipient],
        bounce: { type: bounce.type, message: bounce.message },
        bouncedAt: now,
        response: bounce.message,
        code: bounce.code,
      },
    });
  }
  return events;
}
