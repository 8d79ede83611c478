import { createHash, createPrivateKey, type KeyObject } from "node:crypto";
import { buffer } from "node:stream/consumers";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import DKIM from "nodemailer/lib/dkim/index.js";
import type Mail from "nodemailer/lib/mailer/index.js";

export interface MessageAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
  /** Set: the html refers to it as `cid:<contentId>`, and it goes inline in multipart/related. */
  contentId?: string | null;
  /** Defaults to `inline` with a contentId, else `attachment`. */
  disposition?: "inline" | "attachment";
}

export interface DkimKey {
  domainName: string;
  keySelector: string;
  /** PEM. */
  privateKey: string;
}

export interface MessageInput {
  /** `a@b.c` or `Name <a@b.c>`. */
  from: string;
  to: string[];
  cc?: string[];
  /** Kept out of the headers: the caller puts these in the envelope only. Accepted here so a caller can pass an email as it is. */
  bcc?: string[];
  replyTo?: string[];
  subject: string;
  html?: string | null;
  text?: string | null;
  /** Custom headers, already checked by the caller (no CR/LF, none that Tidings sets itself). */
  headers?: Record<string, string>;
  attachments?: MessageAttachment[];
  /** `<id@host>`: see `messageIdFor`. */
  messageId: string;
  /** The Date header. Pass the email's creation time, so a retry composes the very same bytes. */
  date: Date;
  listUnsubscribe?: { url?: string; mailto?: string };
  dkim?: DkimKey;
}

/** The Message-ID of an email: derived from its id, so every (re)delivery carries the same one and receivers can drop duplicates. */
export function messageIdFor(emailId: string, host: string): string {
  return `<${emailId}@${host}>`;
}

function listUnsubscribeHeaders(list: NonNullable<MessageInput["listUnsubscribe"]>): Record<string, string> {
  const targets = [list.url, list.mailto && (list.mailto.startsWith("mailto:") ? list.mailto : `mailto:${list.mailto}`)].filter(Boolean);
  if (targets.length === 0) return {};
  return {
    "List-Unsubscribe": targets.map((t) => `<${t}>`).join(", "),
    // RFC 8058: one-click only over an https URL a mail client can POST to.
    ...(list.url?.startsWith("https:") && { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }),
  };
}

const parsedKeys = new Map<string, KeyObject>();

/** Parsing a PEM key takes OpenSSL 3 longer than the RSA signature itself, so each key is parsed once. */
function signingKey(pem: string): KeyObject {
  let key = parsedKeys.get(pem);
  if (!key) {
    if (parsedKeys.size >= 1000) parsedKeys.clear();
    key = createPrivateKey(pem);
    parsedKeys.set(pem, key);
  }
  return key;
}

/**
 * Composes the raw RFC 5322 message, DKIM-signed when a key is given. Deterministic: the MIME boundaries
 * derive from the Message-ID and the date is an input, so composing the same email twice yields the same
 * bytes (RSA PKCS#1 v1.5 signatures are deterministic too, and nodemailer adds no `t=` tag).
 */
export async function composeMessage(input: MessageInput): Promise<Buffer> {
  const options: Mail.Options & { baseBoundary: string } = {
    from: input.from,
    to: input.to,
    cc: input.cc?.length ? input.cc : undefined,
    replyTo: input.replyTo?.length ? input.replyTo : undefined,
    subject: input.subject,
    html: input.html ?? undefined,
    text: input.text ?? undefined,
    headers: { ...input.headers, ...(input.listUnsubscribe && listUnsubscribeHeaders(input.listUnsubscribe)) },
    attachments: input.attachments?.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      ...(a.contentId && { cid: a.contentId }),
      contentDisposition: a.disposition ?? (a.contentId ? "inline" : "attachment"),
    })),
    messageId: input.messageId,
    date: input.date,
    baseBoundary: createHash("sha256").update(input.messageId).digest("hex").slice(0, 16),
    // Never read a file or URL named in a field: attachment bytes come from the blob store only.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  const composer = new MailComposer(options);
  const unsigned = await composer.compile().build();
  return input.dkim ? dkimSign(unsigned, input.dkim) : unsigned;
}

/** The message with a DKIM-Signature header over it, made with `dkim`'s key. */
export function dkimSign(message: Buffer, dkim: DkimKey): Promise<Buffer> {
  // nodemailer hands the key to crypto's sign(), which takes a KeyObject as well as a PEM string.
  const privateKey = signingKey(dkim.privateKey) as unknown as string;
  return buffer(new DKIM({ ...dkim, privateKey, cacheDir: false }).sign(message));
}
