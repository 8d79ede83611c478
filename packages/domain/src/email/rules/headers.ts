import { DomainError } from "../../decider.js";

/**
 * Headers Tidings writes itself. Letting a caller set them would break threading (Message-ID derives from
 * the email id), the envelope, or the DKIM signature, so they are refused rather than silently dropped.
 */
const ownHeaders = new Set([
  "message-id",
  "from",
  "sender",
  "to",
  "cc",
  "bcc",
  "reply-to",
  "subject",
  "date",
  "mime-version",
  "dkim-signature",
  "return-path",
  "received",
]);

const fieldName = /^[\x21-\x39\x3b-\x7e]+$/;

export function checkHeaders(headers: Record<string, string>): DomainError | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (!fieldName.test(name))
      return new DomainError("validation_error", `Invalid \`headers\` field: \`${name}\` is not a valid header name.`);
    const lower = name.toLowerCase();
    if (ownHeaders.has(lower) || lower.startsWith("content-"))
      return new DomainError("validation_error", `Invalid \`headers\` field: \`${name}\` is set by Tidings and cannot be overridden.`);
    if (/[\r\n]/.test(value))
      return new DomainError("validation_error", `Invalid \`headers\` field: the value of \`${name}\` must not contain line breaks.`);
  }
  return undefined;
}
