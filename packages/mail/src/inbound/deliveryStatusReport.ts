import { addressTokens, contentType, first, multipartParts, parseEntity, parseHeaderFields } from "./mimeParts.js";

/** One recipient's block of a delivery-status report. */
export interface RecipientStatus {
  /**
   * `Original-Recipient` (the address as we sent to it, when a mailbox forwarded elsewhere), else
   * `Final-Recipient`, bare.
   */
  recipient: string;
  /** `failed`, `delayed`, `delivered`, `relayed` or `expanded` (a comment after it dropped). */
  action: string;
  /** The enhanced status code, `5.1.1`; null when absent. */
  status: string | null;
  /** `Diagnostic-Code` without its type, e.g. `550 5.1.1 <x@y>: user unknown`; null when absent. */
  diagnostic: string | null;
}

/** What a delivery-status notification (an asynchronous bounce, RFC 3464) says. */
export interface DeliveryStatusReport {
  /** The original message's Message-ID, `<…>`, when the report carries its headers. */
  originalMessageId: string | null;
  recipients: RecipientStatus[];
}

const withoutType = (value: string | undefined) => value?.replace(/^[a-z0-9-]+;\s*/i, "").trim() || null;

/**
 * Reads a message as a delivery-status report, or null when it is not one: a `multipart/report` whose
 * `report-type` is `delivery-status`, with a `message/delivery-status` part. That part is a block of
 * per-message fields, then one block per recipient, separated by blank lines.
 */
export function parseDeliveryStatusReport(raw: Buffer): DeliveryStatusReport | null {
  const message = parseEntity(raw);
  const type = contentType(message);
  if (type.type !== "multipart/report" || type.params["report-type"]?.toLowerCase() !== "delivery-status") return null;
  const parts = multipartParts(message);
  const status = parts.find((p) => ["message/delivery-status", "message/global-delivery-status"].includes(contentType(p).type));
  if (!status) return null;
  const blocks = status.body
    .toString("utf8")
    .split(/\r?\n\s*\r?\n/)
    .map(parseHeaderFields);
  const recipients = blocks.flatMap((fields): RecipientStatus[] => {
    const recipient = addressTokens([
      withoutType(first(fields, "original-recipient")) ?? "",
      withoutType(first(fields, "final-recipient")) ?? "",
    ])[0];
    if (recipient === undefined) return [];
    return [
      {
        recipient,
        action: (first(fields, "action") ?? "").toLowerCase().split(/[\s(;]/)[0]!,
        status: first(fields, "status")?.match(/\d\.\d{1,3}\.\d{1,3}/)?.[0] ?? null,
        diagnostic: withoutType(first(fields, "diagnostic-code"))?.slice(0, 1000) ?? null,
      },
    ];
  });
  const originalPart = parts.find((p) =>
    ["message/rfc822", "text/rfc822-headers", "message/global", "message/global-headers"].includes(contentType(p).type),
  );
  const original = originalPart ? parseEntity(originalPart.body).headers : new Map<string, string[]>();
  return { originalMessageId: first(original, "message-id")?.match(/<[^<>\s]+>/)?.[0] ?? null, recipients };
}
