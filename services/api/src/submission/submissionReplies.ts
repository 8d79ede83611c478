import { DomainRejection } from "@tidings/commands";
import { TidingsError, type Logger } from "@tidings/core";

/** An SMTP reply: the code and the text after it, an enhanced status code (RFC 3463) first. */
export interface SmtpReply {
  code: number;
  message: string;
}

/** Refusals of the API that are the client's to fix: the message is refused for good, with the API's reason. */
const permanent = new Set([
  "validation_error",
  "missing_required_field",
  "invalid_from_address",
  "invalid_attachment",
  "invalid_parameter",
  "sending_domain_restricted",
  "sending_paused",
  "invalid_access",
]);

/**
 * What a submission client is answered for a failure of the send path: the API's refusals with its own
 * message (550, or 452 over the team's rate limit), anything else 451 so that the client keeps the message
 * and tries again, which the idempotency key makes safe.
 */
export function smtpReplyTo(error: unknown, logger: Logger): SmtpReply {
  const code = error instanceof TidingsError ? error.code : error instanceof DomainRejection ? error.error.name : null;
  const message = (error as Error).message.replace(/[\r\n]+/g, " ");
  if (code === "rate_limit_exceeded") return { code: 452, message: `4.7.1 ${message}` };
  if (code === "sending_domain_restricted" || code === "sending_paused") return { code: 550, message: `5.7.1 ${message}` };
  if (code !== null && permanent.has(code)) return { code: 550, message: `5.6.0 ${message}` };
  if (code === "service_unavailable") return { code: 451, message: `4.3.0 ${message}` };
  logger.error({ err: error }, "submission: recording a message failed");
  return { code: 451, message: "4.3.0 Temporary failure recording the message, try again later" };
}
