import type { EmailContent } from "@tidings/domain";
import { composeMessage, messageIdFor } from "@tidings/mail";
import { instantOf } from "./emailStream.js";
import type { SendingDomain } from "./sendingDomain.js";

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
  /** The email's sending domain, whose DKIM key signs the message. */
  sendingDomain: (domainId: string | null) => Promise<SendingDomain>;
}): (content: EmailContent) => Promise<Buffer> {
  return async (content) => {
    const { dkim } = await options.sendingDomain(content.domainId);
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
      html: content.html,
      text: content.text,
      headers: content.headers,
      attachments,
      messageId: messageIdFor(content.emailId, options.host),
      date: instantOf(content.createdAt),
      ...(dkim ? { dkim } : {}),
    });
  };
}
