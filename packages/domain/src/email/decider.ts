import { DomainError, type Decider } from "../decider.js";
import type { EmailContent, EmailEvent } from "./events.js";

/** The wire's `last_event` values this aggregate produces (reference §6.1; opens and clicks come later). */
export type EmailStatus =
  | "queued"
  | "scheduled"
  | "canceled"
  | "sent"
  | "delivered"
  | "delivery_delayed"
  | "bounced"
  | "failed"
  | "suppressed";

const finalStatuses: ReadonlySet<EmailStatus> = new Set(["canceled", "delivered", "bounced", "failed", "suppressed"]);

export type EmailState =
  | { status: "none" }
  | { status: EmailStatus; emailId: string; teamId: string; scheduledAt: string | null; sent: boolean; delayedAttempts: number };

interface SmtpReply {
  response: string;
  code: number | null;
}

export type EmailCommand =
  | {
      type: "SendEmail";
      content: EmailContent;
      /** Null sends now. Already checked against `now` by `parseScheduledAt`. */
      scheduledAt: string | null;
      /** The recipients found on the team's suppression list (a lookup by the handler). */
      suppressed: string[];
      now: string;
    }
  | { type: "RescheduleEmail"; teamId: string; scheduledAt: string; now: string }
  | { type: "CancelEmail"; teamId: string; now: string }
  | { type: "RecordEmailSent"; now: string }
  | ({ type: "RecordEmailDelivered"; now: string } & SmtpReply)
  | ({ type: "RecordEmailDeliveryDelayed"; attempt: number; nextAttemptAt: string | null; now: string } & SmtpReply)
  | ({
      type: "RecordEmailBounced";
      recipients: string[];
      bounce: { type: "permanent" | "transient" | "undetermined"; message: string };
      now: string;
    } & SmtpReply)
  | { type: "RecordEmailFailed"; reason: string; response: string | null; code: number | null; now: string }
  | { type: "RecordEmailSuppressed"; recipients: string[]; now: string };

export const hasFinalOutcome = (state: EmailState) => state.status !== "none" && finalStatuses.has(state.status);

const notFound = () => new DomainError("not_found", "Email not found");

const statusAfter: Partial<Record<EmailEvent["type"], EmailStatus>> = {
  EmailQueued: "queued",
  EmailScheduled: "scheduled",
  EmailCanceled: "canceled",
  EmailSent: "sent",
  EmailDelivered: "delivered",
  EmailDeliveryDelayed: "delivery_delayed",
  EmailBounced: "bounced",
  EmailFailed: "failed",
  EmailSuppressed: "suppressed",
};

export const emailDecider: Decider<EmailCommand, EmailEvent, EmailState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    if (event.type === "EmailQueued" || event.type === "EmailScheduled") {
      const scheduledAt = event.type === "EmailScheduled" ? event.data.scheduledAt : null;
      return { status: statusAfter[event.type]!, emailId: event.data.emailId, teamId: event.data.teamId, scheduledAt, sent: false, delayedAttempts: 0 };
    }
    if (state.status === "none") return state;
    switch (event.type) {
      case "EmailRescheduled":
        return { ...state, scheduledAt: event.data.scheduledAt };
      case "EmailSent":
        return { ...state, status: "sent", sent: true };
      case "EmailDeliveryDelayed":
        return { ...state, status: "delivery_delayed", delayedAttempts: Math.max(state.delayedAttempts, event.data.attempt) };
      default:
        return { ...state, status: statusAfter[event.type]! };
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
        return [{ type: "EmailRescheduled", data: { emailId: state.emailId, scheduledAt: command.scheduledAt, rescheduledAt: command.now } }];
      case "CancelEmail":
        if (state.teamId !== command.teamId) return notFound();
        if (state.status === "canceled") return [];
        if (state.status !== "scheduled")
          return new DomainError("validation_error", `Email cannot be canceled: it is ${state.status}, not scheduled.`);
        return [{ type: "EmailCanceled", data: { emailId: state.emailId, canceledAt: command.now } }];
    }
    // Outcomes come from the delivery saga, which may see a message twice: an email that already has its
    // final outcome records nothing more, so a redelivery appends nothing (DESIGN §1).
    if (hasFinalOutcome(state)) return [];
    const emailId = state.emailId;
    switch (command.type) {
      case "RecordEmailSent":
        return state.sent ? [] : [{ type: "EmailSent", data: { emailId, sentAt: command.now } }];
      case "RecordEmailDelivered": {
        const delivered: EmailEvent = {
          type: "EmailDelivered",
          data: { emailId, deliveredAt: command.now, response: command.response, code: command.code },
        };
        return state.sent ? [delivered] : [{ type: "EmailSent", data: { emailId, sentAt: command.now } }, delivered];
      }
      case "RecordEmailDeliveryDelayed": {
        if (command.attempt <= state.delayedAttempts) return [];
        const { attempt, nextAttemptAt, response, code, now } = command;
        return [{ type: "EmailDeliveryDelayed", data: { emailId, attempt, nextAttemptAt, delayedAt: now, response, code } }];
      }
      case "RecordEmailBounced": {
        const { recipients, bounce, response, code, now } = command;
        return [{ type: "EmailBounced", data: { emailId, teamId: state.teamId, recipients, bounce, bouncedAt: now, response, code } }];
      }
      case "RecordEmailFailed": {
        const { reason, response, code, now } = command;
        return [{ type: "EmailFailed", data: { emailId, reason, failedAt: now, response, code } }];
      }
      case "RecordEmailSuppressed":
        return [{ type: "EmailSuppressed", data: { emailId, recipients: command.recipients, suppressedAt: command.now } }];
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
  return [created, { type: "EmailSuppressed", data: { emailId: content.emailId, recipients: suppressed, suppressedAt: now } }];
}
