import { DomainRejection, handleCommand } from "@tidings/commands";
import { formatTimestamp, isUuid, type Clock } from "@tidings/core";
import { emailDecider, emailStream } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import type { FeedbackReport } from "@tidings/mail";

/** What came of a report: `recorded` on the email it names; `duplicate`: that email has it already; `unmatched`: it names no email of ours. */
export type ReportOutcome = "recorded" | "duplicate" | "unmatched";

/** A report that came too early (`not_yet_sent`): the listener answers 451, and the sending server tries later. */
export class ReportTooEarly extends Error {
  override readonly name = "ReportTooEarly";
}

/** Our Message-IDs are `<emailId@host>` (`messageIdFor`): a report names the email by it. */
export const emailIdOfMessageId = (messageId: string | null) => {
  const local = messageId?.match(/^<([^@>]+)@/)?.[1]?.toLowerCase();
  return local !== undefined && isUuid(local) ? local : null;
};

/**
 * Records a feedback-loop report on the email it is about. The decider ignores a second report about the
 * same recipients, so a provider that sends the report again, or an SMTP retry, changes nothing.
 */
export async function recordComplaint(deps: { store: EventStore; clock: Clock }, report: FeedbackReport): Promise<ReportOutcome> {
  const emailId = emailIdOfMessageId(report.originalMessageId);
  if (emailId === null) return "unmatched";
  const now = formatTimestamp(deps.clock.now());
  try {
    const { events } = await handleCommand({
      store: deps.store,
      streamId: emailStream(emailId),
      decider: emailDecider,
      command: { type: "RecordEmailComplained", recipients: report.recipients, feedbackType: report.feedbackType, reportedBy: report.reportedBy, now },
      metadata: (state) => ({ ...(state.status === "none" ? {} : { teamId: state.teamId }), actor: "feedback-loop", correlationId: emailId, occurredAt: now }),
    });
    return events.length > 0 ? "recorded" : "duplicate";
  } catch (error) {
    if (error instanceof DomainRejection && error.error.name === "not_found") return "unmatched";
    throw error;
  }
}
