import type { EmailEvent } from "./events.js";
import { recipientKey } from "./recipients.js";

/** What the server said about one envelope recipient (the transport's per-recipient outcome). */
export interface RecipientResult {
  recipient: string;
  kind: "delivered" | "deferred" | "bounced" | "failed";
  code: number | null;
  response: string;
}

export interface DeliveryAttempt {
  /** One entry per recipient the attempt was sent to. */
  results: RecipientResult[];
  /** The deferral count this attempt makes, if it defers anyone: a deferral already recorded is not recorded again. */
  attempt: number;
  /** When the deferred recipients are tried again; null when the retry window is over and they fail instead. */
  nextAttemptAt: string | null;
  now: string;
}

interface AttemptContext {
  emailId: string;
  teamId: string;
  sent: boolean;
  delayedAttempts: number;
  /** Keys (`recipientKey`) of the recipients with no outcome yet. */
  pending: ReadonlySet<string>;
}

/**
 * The events one delivery attempt records. Each outcome event names its recipients, so nothing settled is
 * sent again. The events are ordered so the last names the email's `last_event` (docs/wire-compatibility.md §6.1 lists the
 * values; Resend's field is the email's latest event): `delivery_delayed` while any recipient is still
 * pending, so an email is never shown delivered before every recipient is done; otherwise the attempt's
 * summary by the transport's precedence (delivered, then failed, then bounced: `DeliveryOutcome`), so an
 * email delivered to some recipients and bounced by others shows delivered, with the bounce recorded
 * before it (and its addresses suppressed one by one).
 */
export function decideDeliveryAttempt(attempt: DeliveryAttempt, email: AttemptContext): EmailEvent[] {
  const { emailId, teamId } = email;
  // A recipient settled already was recorded by an earlier run of this attempt (a redelivered message).
  const fresh = attempt.results.filter((r) => email.pending.has(recipientKey(r.recipient)));
  const of = (kind: RecipientResult["kind"]) => fresh.filter((r) => r.kind === kind);
  const deferred = attempt.attempt > email.delayedAttempts ? of("deferred") : [];
  const expired = attempt.nextAttemptAt === null ? deferred : [];
  const delayed = attempt.nextAttemptAt === null ? [] : deferred;
  const [delivered, bounced, failed] = [of("delivered"), of("bounced"), of("failed")];
  const recipients = (results: RecipientResult[]) => results.map((r) => r.recipient);
  const reply = (results: RecipientResult[]) => ({ response: results[0]!.response, code: results[0]!.code });
  const at = attempt.now;

  const events: EmailEvent[] = [];
  if (delivered.length > 0 && !email.sent) events.push({ type: "EmailSent", data: { emailId, sentAt: at } });
  if (bounced.length > 0)
    events.push({
      type: "EmailBounced",
      data: {
        emailId,
        teamId,
        recipients: recipients(bounced),
        bounce: { type: "permanent", message: bounced[0]!.response },
        bouncedAt: at,
        ...reply(bounced),
      },
    });
  if (failed.length > 0)
    events.push({
      type: "EmailFailed",
      data: { emailId, reason: failed[0]!.response, failedAt: at, ...reply(failed), recipients: recipients(failed) },
    });
  if (expired.length > 0)
    events.push({
      type: "EmailFailed",
      data: {
        emailId,
        reason: `deferred for 24 hours: ${expired[0]!.response}`,
        failedAt: at,
        ...reply(expired),
        recipients: recipients(expired),
      },
    });
  if (delivered.length > 0)
    events.push({ type: "EmailDelivered", data: { emailId, deliveredAt: at, ...reply(delivered), recipients: recipients(delivered) } });
  if (delayed.length > 0)
    events.push({
      type: "EmailDeliveryDelayed",
      data: {
        emailId,
        attempt: attempt.attempt,
        nextAttemptAt: attempt.nextAttemptAt,
        delayedAt: at,
        ...reply(delayed),
        recipients: recipients(delayed),
      },
    });
  return events;
}
