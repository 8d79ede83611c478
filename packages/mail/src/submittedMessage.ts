import { dkimSign, type DkimKey } from "./composeMessage.js";

export interface SubmittedMessageInput {
  /** The message as the client submitted it over SMTP. */
  raw: Buffer;
  /** `<id@host>`: see `messageIdFor`. Replaces the client's, so reports and replies name the email. */
  messageId: string;
  /** The Date header when the client wrote none: the email's creation time, the same on every attempt. */
  date: Date;
  dkim?: DkimKey;
}

/** Header fields a submitted message loses on its way out: Bcc names hidden recipients, Message-ID is replaced. */
const dropped = new Set(["bcc", "message-id"]);

/**
 * The message a submitted email is sent as: the client's bytes with its Bcc header removed, its Message-ID
 * replaced by the email's own, a Date added if it had none, and DKIM-signed when a key is given. Every other
 * header and the body (attachments included) go out as written. Deterministic, like `composeMessage`.
 */
export async function submittedMessage(input: SubmittedMessageInput): Promise<Buffer> {
  const text = input.raw.toString("latin1");
  const crlf = text.indexOf("\r\n\r\n");
  const lf = text.indexOf("\n\n");
  const end = crlf !== -1 && (lf === -1 || crlf < lf) ? crlf + 2 : lf !== -1 ? lf + 1 : text.length;
  const fields = text
    .slice(0, end)
    .split(/(?<=\n)(?![ \t])/)
    .filter((field) => field.length > 0);
  const nameOf = (field: string) => field.slice(0, field.indexOf(":")).trim().toLowerCase();
  const kept = fields.filter((field) => !dropped.has(nameOf(field)));
  const added = [`Message-ID: ${input.messageId}\r\n`];
  if (!fields.some((field) => nameOf(field) === "date")) added.push(`Date: ${input.date.toUTCString().replace("GMT", "+0000")}\r\n`);
  const message = Buffer.concat([
    Buffer.from(added.join("") + kept.join(""), "latin1"),
    input.raw.subarray(Buffer.byteLength(text.slice(0, end), "latin1")),
  ]);
  return input.dkim ? dkimSign(message, input.dkim) : message;
}
