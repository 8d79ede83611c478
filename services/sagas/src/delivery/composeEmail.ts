import type { EmailContent } from "@tidings/domain";
import { composeMessage, messageIdFor, submittedMessage, trackEngagement } from "@tidings/mail";
import { instantOf } from "./emailStream.js";
import type { DeliveryDomain } from "./deliveryDomain.js";

export interface BlobReader {
  get(sha256: string): Promise<Buffer>;
}

/**
 * The raw message of an email, the same bytes on every attempt: the Message-ID derives from the email id
 * and the Date header is the email's creation time, so a duplicate after a crash is recognisably the same.
 */
export function emailComposer(options: {
  blobs: BlobReader;
  host: string;
  /** The email's sending domain, whose DKIM key signs the message and whose settings say what to track. */
  deliveryDomain: (domainId: string | null) => Promise<DeliveryDomain>;
  /** Signs tracking tokens (the api checks them with the same); without it nothing is tracked. */
  secret?: string;
  /** PUBLIC_URL: links to the recipient's own unsubscribe page stay as they are. */
  publicUrl?: string;
}): (content: EmailContent) => Promise<Buffer> {
  const ownPages = options.publicUrl && `${options.publicUrl.replace(/\/+$/, "")}/unsubscribe/`;
  const keep = (url: string) => Boolean(ownPages && url.startsWith(ownPages));
  return async (content) => {
    const { dkim, tracking } = await options.deliveryDomain(content.domainId);
    const messageId = messageIdFor(content.emailId, options.host);
    const date = instantOf(content.createdAt);
    // Submitted over SMTP: the client's message goes out as written, so its links are not tracked.
    if (content.raw)
      return submittedMessage({ raw: await options.blobs.get(content.raw.blob), messageId, date, ...(dkim ? { dkim } : {}) });
    const html =
      tracking && options.secret && content.html !== null
        ? trackEngagement(content.html, { ...tracking, secret: options.secret, emailId: content.emailId, keep })
        : content.html;
    const attachments = await Promise.all(
      content.attachments.map(async (a) => ({
        filename: a.filename,
        contentType: a.contentType,
        content: await options.blobs.get(a.blob),
        contentId: a.contentId,
        disposition: a.disposition,
      })),
    );
    return composeMessage({
      from: content.from,
      to: content.to,
      cc: content.cc,
      replyTo: content.replyTo,
      subject: content.subject,
      html,
      text: content.text,
      headers: content.headers,
      attachments,
      messageId,
      date,
      ...(dkim ? { dkim } : {}),
    });
  };
}
