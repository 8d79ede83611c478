import type { ParsedMail } from "mailparser";
import { TidingsError } from "@tidings/core";
import { recipientKey } from "@tidings/domain";
import type { SendEmailRequest } from "../handlers/prepareEmail.js";
import { headerRecord, mailboxes } from "../inbound/parseReceived.js";

/** The header a submitted message names its tags in: `X-Tags: name=value, name=value` (docs/wire-compatibility.md). */
export const TAGS_HEADER = "x-tags";
/** The header Resend's SMTP service documents for idempotency; without it the Message-ID is the key. */
export const IDEMPOTENCY_HEADER = "resend-idempotency-key";

function tagsOf(header: string | undefined): { name: string; value: string }[] {
  if (header === undefined) return [];
  return header
    .split(/[,\n]/)
    .map((pair) => pair.trim())
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const at = pair.indexOf("=");
      if (at <= 0) throw new TidingsError("validation_error", `Invalid \`X-Tags\` header: \`${pair}\` is not name=value.`);
      return { name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim() };
    });
}

/**
 * A submitted message as the send it stands for, so that it passes the checks of `POST /emails`. The
 * envelope decides who gets it, as SMTP says: a recipient keeps its place in To or Cc when the header names
 * it, the rest are Bcc; when the header names none of them (a list sent as Bcc to all), they are the `to`.
 */
export function submittedSend(parsed: ParsedMail, envelope: { recipients: string[] }): SendEmailRequest {
  const headers = headerRecord(parsed);
  const inEnvelope = new Set(envelope.recipients.map((r) => r.toLowerCase()));
  const named = (list: string[]) => list.filter((mailbox) => inEnvelope.delete(recipientKey(mailbox)));
  let to = named(mailboxes(parsed.to));
  const cc = named(mailboxes(parsed.cc));
  let bcc = [...inEnvelope];
  if (to.length === 0 && cc.length === 0) [to, bcc] = [bcc, []];
  const from = mailboxes(parsed.from)[0];
  return {
    ...(from === undefined ? {} : { from }),
    to,
    cc,
    bcc,
    reply_to: mailboxes(parsed.replyTo),
    subject: parsed.subject ?? "",
    ...(parsed.html === false ? {} : { html: parsed.html }),
    ...(parsed.text === undefined ? {} : { text: parsed.text }),
    tags: tagsOf(headers[TAGS_HEADER]),
    attachments: parsed.attachments.map((a) => ({
      content: a.content.toString("base64"),
      filename: a.filename ?? "attachment",
      content_type: a.contentType,
      ...(a.contentDisposition === "inline" && a.cid ? { content_id: a.cid } : {}),
    })),
  };
}

/** What makes a retried message the same email: the idempotency header, else the Message-ID; null without either. */
export function idempotencyKeyOf(parsed: ParsedMail): string | null {
  const header = headerRecord(parsed)[IDEMPOTENCY_HEADER];
  if (header) return `key:${header}`;
  return parsed.messageId ? `message-id:${parsed.messageId}` : null;
}
