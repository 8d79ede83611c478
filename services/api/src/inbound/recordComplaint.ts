import { formatTimestamp, isUuid, type Clock } from "@tidings/core";
import type { EventStore } from "@tidings/eventstore";
import type { FeedbackReport } from "@tidings/mail";
import { recordOnEmail, type ReportOutcome } from "./recordOnEmail.js";

/** Our Message-IDs are `<emailId@host>` (`messageIdFor`): a feedback report names the email by it. */
const emailIdOfMessageId = (messageId: string | null) => {
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
  const { recipients, feedbackType, reportedBy } = report;
  return recordOnEmail(
    deps.store,
    emailId,
    { type: "RecordEmailComplained", recipients, feedbackType, reportedBy, now: formatTimestamp(deps.clock.now()) },
    "feedback-loop",
  );
}
