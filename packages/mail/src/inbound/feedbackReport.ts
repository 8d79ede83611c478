import { addressTokens, contentType, first, multipartParts, parseEntity, parseHeaderFields } from "./mimeParts.js";

/** What a feedback-loop report (ARF, RFC 5965) says, as far as a sender acts on it. */
export interface FeedbackReport {
  /** `abuse`, `fraud`, `virus`, `other`, `not-spam`, …, lower-cased. */
  feedbackType: string;
  /** The report's `User-Agent`, else its `Reporting-MTA`. */
  reportedBy: string | null;
  /** The original message's Message-ID, `<…>`: how the report names the email. */
  originalMessageId: string | null;
  /**
   * Who complained, bare: `Original-Rcpt-To` and `Removal-Recipient`, else the original `To` when it names
   * one address only (it names everyone the message went to); providers often redact them all.
   */
  recipients: string[];
}

function complainants(fields: Map<string, string[]>, original: Map<string, string[]>): string[] {
  const named = addressTokens([...(fields.get("original-rcpt-to") ?? []), ...(fields.get("removal-recipient") ?? [])]);
  if (named.length > 0) return [...new Set(named)];
  const to = [...new Set(addressTokens(original.get("to") ?? []))];
  return to.length === 1 ? to : [];
}

/**
 * Reads a message as a feedback report, or answers null when it is not one: a `multipart/report` whose
 * `report-type` is `feedback-report`, with a `message/feedback-report` part. The original message comes
 * as `message/rfc822` or `text/rfc822-headers`; only its headers matter.
 */
export function parseFeedbackReport(raw: Buffer): FeedbackReport | null {
  const message = parseEntity(raw);
  const type = contentType(message);
  if (type.type !== "multipart/report" || type.params["report-type"]?.toLowerCase() !== "feedback-report") return null;
  const parts = multipartParts(message);
  const report = parts.find((p) => contentType(p).type === "message/feedback-report");
  if (!report) return null;
  const fields = parseHeaderFields(report.body.toString("utf8"));
  const originalPart = parts.find((p) => ["message/rfc822", "text/rfc822-headers"].includes(contentType(p).type));
  const original = originalPart ? parseEntity(originalPart.body).headers : new Map<string, string[]>();
  const messageId = first(original, "message-id")?.match(/<[^<>\s]+>/)?.[0] ?? null;
  return {
    feedbackType: (first(fields, "feedback-type") ?? "other").toLowerCase(),
    reportedBy: first(fields, "user-agent") ?? first(fields, "reporting-mta")?.replace(/^dns;\s*/i, "") ?? null,
    originalMessageId: messageId,
    recipients: complainants(fields, original),
  };
}
