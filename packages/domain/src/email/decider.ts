import { DomainError, type Decider } from "../decider.js";
import { decideBounceReport, type ReportedBounce } from "./bounceReport.js";
import { ANONYMOUS_COMPLAINT, decideComplaint, type Complaint } from "./complaint.js";
import { decideDeliveryAttempt, type DeliveryAttempt } from "./deliveryAttempt.js";
import { decideEngagement, type Engagement } from "./engagement.js";
import { suppressionReason, type SuppressedAddress } from "../suppression/events.js";
import type { EmailContent, EmailEvent } from "./events.js";
import { emailStatusAfter, type EmailStatus } from "./status.js";
import { envelopeRecipients, recipientKey, type RecipientSettlement } from "./recipients.js";

export type EmailState =
  | { status: "none" }
  | {
      /** The last event's `last_event`: the delivery decider orders an attempt's events so it is the email's. */
      status: EmailStatus;
      emailId: string;
      teamId: string;
      scheduledAt: string | null;
      sent: boolean;
      delayedAttempts: number;
      /** The envelope, in order (`envelopeRecipients`). */
      recipients: string[];
      /** By `recipientKey`: the recipients whose delivery has ended; the others are pending. */
      settled: Readonly<Record<string, RecipientSettlement>>;
      /** When the first recipient was delivered: a click sooner after it than a person can manage is a scanner's. */
      deliveredAt: string | null;
      /** By `recipientKey`, the recipients a feedback report blamed (`decideComplaint`). */
      complained: readonly string[];
    };

export type EmailCommand =
  | {
      type: "SendEmail";
      content: EmailContent;
      /** Null sends now. Already checked against `now` by `parseScheduledAt`. */
      scheduledAt: string | null;
      /** The recipients found on the team's suppression list (a lookup by the handler). */
      suppressed: SuppressedAddress[];
      now: string;
    }
  | { type: "RescheduleEmail"; teamId: string; scheduledAt: string; now: string }
  | { type: "CancelEmail"; teamId: string; now: string }
  | { type: "RecordEmailSent"; now: string }
  | ({ type: "RecordDeliveryAttempt" } & DeliveryAttempt)
  /** The whole rest of the email fails (its message could not be built). */
  | { type: "RecordEmailFailed"; reason: string; response: string | null; code: number | null; now: string }
  | { type: "RecordEmailSuppressed"; suppressed: SuppressedAddress[]; now: string }
  /** A tracking pixel loaded, or a tracked link followed (`link` and `linkIndex` from the signed token). */
  | ({ type: "RecordEmailOpened" } & Engagement)
  | ({ type: "RecordEmailClicked"; link: string; linkIndex: number } & Engagement)
  /** A delivery-status report (an asynchronous bounce) about the email arrived. */
  | { type: "RecordBounceReport"; bounces: ReportedBounce[]; now: string }
  /** A feedback-loop report about the email arrived. */
  | ({ type: "RecordEmailComplained" } & Complaint)
  /** The broadcast the email belongs to was canceled before the email's first attempt. */
  | { type: "RecordEmailCanceled"; now: string };

/** The recipients a delivery still has to reach, in envelope order: a retry sends to these only. */
export function pendingRecipients(state: EmailState): string[] {
  if (state.status === "none" || state.status === "canceled") return [];
  return state.recipients.filter((r) => state.settled[recipientKey(r)] === undefined);
}

/** Canceled, or every recipient settled: nothing is ever sent for it again. */
export const hasFinalOutcome = (state: EmailState) => state.status !== "none" && pendingRecipients(state).length === 0;

/**
 * Settles `recipients`, or when absent every pending recipient: an event recorded before outcomes named
 * their recipients was the email's one outcome. A recipient settles once; the first outcome stays.
 */
function settle(
  state: Extract<EmailState, { emailId: string }>,
  as: RecipientSettlement,
  recipients?: string[],
): Record<string, RecipientSettlement> {
  const settled = { ...state.settled };
  for (const recipient of recipients ?? pendingRecipients(state)) settled[recipientKey(recipient)] ??= as;
  return settled;
}

const notFound = () => new DomainError("not_found", "Email not found");

export const emailDecider: Decider<EmailCommand, EmailEvent, EmailState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    if (event.type === "EmailQueued" || event.type === "EmailScheduled") {
      const scheduledAt = event.type === "EmailScheduled" ? event.data.scheduledAt : null;
      const { emailId, teamId } = event.data;
      return {
        status: event.type === "EmailQueued" ? "queued" : "scheduled",
        emailId,
        teamId,
        scheduledAt,
        sent: false,
        delayedAttempts: 0,
        recipients: envelopeRecipients(event.data),
        settled: {},
        deliveredAt: null,
        complained: [],
      };
    }
    if (state.status === "none") return state;
    const status = emailStatusAfter[event.type] ?? state.status;
    switch (event.type) {
      case "EmailRescheduled":
        return { ...state, scheduledAt: event.data.scheduledAt };
      case "EmailSent":
        return { ...state, status, sent: true };
      case "EmailDeliveryDelayed":
        return { ...state, status, delayedAttempts: Math.max(state.delayedAttempts, event.data.attempt) };
      case "EmailDelivered":
        return {
          ...state,
          status,
          sent: true,
          settled: settle(state, "delivered", event.data.recipients),
          deliveredAt: state.deliveredAt ?? event.data.deliveredAt,
        };
      case "EmailBounced": {
        // A bounce reported after the relay's 250 (`decideBounceReport`) overrides that delivery.
        const settled = settle(state, "bounced", event.data.recipients);
        for (const recipient of event.data.recipients) settled[recipientKey(recipient)] = "bounced";
        return { ...state, status, settled };
      }
      case "EmailFailed":
        return { ...state, status, settled: settle(state, "failed", event.data.recipients) };
      case "EmailSuppressed":
        return { ...state, status, settled: settle(state, "suppressed") };
      case "EmailComplained": {
        const blamed = event.data.recipients.length > 0 ? event.data.recipients.map(recipientKey) : [ANONYMOUS_COMPLAINT];
        return { ...state, status, complained: [...state.complained, ...blamed] };
      }
      default:
        return { ...state, status };
    }
  },
  decide(command, state) {
    if (command.type === "SendEmail") return decideSendEmail(command, state);
    if (state.status === "none") return notFound();
    switch (command.type) {
      case "RescheduleEmail":
        if (state.teamId !== command.teamId) return notFound();
        if (state.status !== "scheduled")
          return new DomainError("validation_error", `Email cannot be rescheduled: it is ${state.status}, not scheduled.`);
        if (state.scheduledAt === command.scheduledAt) return [];
        return [
          { type: "EmailRescheduled", data: { emailId: state.emailId, scheduledAt: command.scheduledAt, rescheduledAt: command.now } },
        ];
      case "CancelEmail":
        if (state.teamId !== command.teamId) return notFound();
        if (state.status === "canceled") return [];
        if (state.status !== "scheduled")
          return new DomainError("validation_error", `Email cannot be canceled: it is ${state.status}, not scheduled.`);
        return [{ type: "EmailCanceled", data: { emailId: state.emailId, canceledAt: command.now } }];
      case "RecordEmailOpened":
      case "RecordEmailClicked":
        // Engagement comes after delivery has ended too: it is not an outcome, and every one is recorded.
        return decideEngagement(command, state);
      case "RecordEmailComplained":
        // Like engagement, a complaint comes after delivery has ended, and so does a bounce report.
        return decideComplaint(command, state);
      case "RecordBounceReport":
        return decideBounceReport(command.bounces, command.now, state);
    }
    // Outcomes come from the delivery saga, which may see a message twice: an email that already has its
    // final outcome records nothing more, so a redelivery appends nothing (docs/architecture.md §1).
    if (hasFinalOutcome(state)) return [];
    const emailId = state.emailId;
    switch (command.type) {
      case "RecordEmailSent":
        return state.sent ? [] : [{ type: "EmailSent", data: { emailId, sentAt: command.now } }];
      case "RecordDeliveryAttempt": {
        const pending = new Set(pendingRecipients(state).map(recipientKey));
        return decideDeliveryAttempt(command, { ...state, pending });
      }
      case "RecordEmailFailed": {
        const { reason, response, code, now } = command;
        return [{ type: "EmailFailed", data: { emailId, reason, failedAt: now, response, code, recipients: pendingRecipients(state) } }];
      }
      case "RecordEmailSuppressed":
        return [suppressedEvent(emailId, command.suppressed, command.now)];
      case "RecordEmailCanceled":
        // Only before anything went out: an email with an attempt behind it finishes its delivery.
        if (state.status !== "queued" || state.sent) return [];
        return [{ type: "EmailCanceled", data: { emailId, canceledAt: command.now } }];
    }
  },
};

function decideSendEmail(command: Extract<EmailCommand, { type: "SendEmail" }>, state: EmailState): EmailEvent[] {
  // The id is generated per request; seeing it again is a retry of the same append.
  if (state.status !== "none") return [];
  const { content, scheduledAt, suppressed, now } = command;
  const created: EmailEvent =
    scheduledAt === null ? { type: "EmailQueued", data: content } : { type: "EmailScheduled", data: { ...content, scheduledAt } };
  // Recorded in the same append as the email, so the delivery saga, which folds the stream before it
  // sends, never sees the email without its outcome. One suppressed recipient suppresses the whole email:
  // the message's headers name every recipient, so it cannot be sent to the others unchanged.
  if (suppressed.length === 0) return [created];
  return [created, suppressedEvent(content.emailId, suppressed, now)];
}

const suppressedEvent = (emailId: string, suppressed: SuppressedAddress[], now: string): EmailEvent => ({
  type: "EmailSuppressed",
  data: { emailId, recipients: suppressed.map((s) => s.email), suppressedAt: now, reason: suppressionReason(suppressed) },
});
