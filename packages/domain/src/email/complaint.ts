import type { EmailEvent } from "./events.js";
import { recipientKey } from "./recipients.js";

/** What a feedback-loop report (ARF, RFC 5965) says about one of the team's emails. */
export interface Complaint {
  /** The addresses the report names (`Original-Rcpt-To`, `Removal-Recipient`, the original `To`); often redacted. */
  recipients: string[];
  /** ARF's `Feedback-Type`: `abuse`, `fraud`, `virus`, `other`, … */
  feedbackType: string;
  /** Who reported it: the report's `User-Agent` or `Reporting-MTA`; null when it names neither. */
  reportedBy: string | null;
  now: string;
}

export interface ComplainedEmail {
  emailId: string;
  teamId: string;
  sent: boolean;
  /** The envelope, in order. */
  recipients: string[];
  /** By `recipientKey`: who has complained already (`ANONYMOUS_COMPLAINT` for a report naming nobody). */
  complained: readonly string[];
}

/**
 * The EmailComplained a report records, or nothing. A report is only about a message that went out. It
 * blames the envelope recipients it names; mailbox providers often redact them, so a report naming none
 * blames the only recipient of a one-recipient email, and nobody in particular otherwise (the email is
 * complained about, and no address is suppressed). A second report about the same recipients, which a
 * provider or a re-sent report gives, records nothing.
 */
export function decideComplaint(complaint: Complaint, email: ComplainedEmail): EmailEvent[] {
  // A `not-spam` report says the opposite of a complaint: the recipient rescued it from a spam folder.
  if (!email.sent || complaint.feedbackType === "not-spam") return [];
  const named = new Set(complaint.recipients.map(recipientKey));
  let blamed = email.recipients.filter((r) => named.has(recipientKey(r)));
  if (blamed.length === 0 && email.recipients.length === 1) blamed = email.recipients;
  const already = new Set(email.complained);
  const fresh = blamed.filter((r) => !already.has(recipientKey(r)));
  if (blamed.length > 0 ? fresh.length === 0 : email.complained.length > 0) return [];
  const { feedbackType, reportedBy, now } = complaint;
  return [
    {
      type: "EmailComplained",
      data: { emailId: email.emailId, teamId: email.teamId, recipients: fresh, feedbackType, reportedBy, complainedAt: now },
    },
  ];
}

/** Stands for nobody in particular in `complained`, so a repeated anonymous report records nothing either. */
export const ANONYMOUS_COMPLAINT = "*";
