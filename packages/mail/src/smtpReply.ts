import type { OutgoingMail, RecipientOutcome, TlsPolicy } from "./port.js";

type Outcome = Omit<RecipientOutcome, "recipient">;

/** nodemailer replaces a TLS socket error's own code with ESOCKET, so a certificate failure shows in the message only. */
const tlsFailure = /certificate|self[- ]signed|altnames|\bTLS\b|\bSSL\b/i;

export const tlsNotOffered = "TLS required by the domain but not offered";

export interface SmtpError extends Error {
  code?: string;
  command?: string;
  response?: string;
  responseCode?: number;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

/**
 * What one nodemailer error means for delivery. Authentication and configuration errors are `deferred`,
 * not bounces, even with a 5xx: they are our fault, and a bounce would put the recipient on the
 * suppression list.
 */
export function outcomeOfSmtpError(error: SmtpError, tls: TlsPolicy): Outcome {
  const response = (error.response ?? error.message).trim();
  if (tls === "enforced" && (error.code === "ETLS" || tlsFailure.test(error.message))) {
    const notOffered = error.command === "STARTTLS" && error.responseCode !== undefined;
    return {
      kind: "failed",
      response: notOffered ? `${tlsNotOffered} (${response})` : `TLS required by the domain but it failed: ${error.message}`,
    };
  }
  const code = error.responseCode;
  if (code === undefined || ["EAUTH", "ENOAUTH", "ECONFIG"].includes(error.code ?? "")) {
    return { kind: "deferred", ...(code !== undefined && { code }), response };
  }
  if (code >= 500) return { kind: "bounced", code, response };
  if (code >= 400) return { kind: "deferred", code, response };
  return { kind: "deferred", code, response: `unexpected reply: ${response}` };
}

const replyCode = (response: string) => Number(/^\d{3}/.exec(response)?.[0] ?? 250);
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Runs one SMTP transaction through `send` and says what became of each envelope recipient: nodemailer
 * goes on with the accepted recipients when the server refuses some at RCPT, and reports those apart.
 */
export async function deliverOverSmtp(
  send: () => Promise<{ response: string; rejectedErrors?: SmtpError[] }>,
  mail: OutgoingMail,
): Promise<RecipientOutcome[]> {
  const each = (outcomeOf: (recipient: string) => Outcome) => mail.envelope.to.map((recipient) => ({ recipient, ...outcomeOf(recipient) }));
  try {
    const info = await send();
    const refused = info.rejectedErrors ?? [];
    return each((recipient) => {
      const refusal = refused.find((e) => e.recipient !== undefined && same(e.recipient, recipient));
      if (refusal) return outcomeOfSmtpError(refusal, mail.tls);
      return { kind: "delivered", code: replyCode(info.response), response: info.response };
    });
  } catch (caught) {
    const error = caught as SmtpError;
    const refused = error.rejectedErrors ?? [];
    return each((recipient) => {
      const refusal = refused.find((e) => e.recipient !== undefined && same(e.recipient, recipient));
      return outcomeOfSmtpError(refusal ?? error, mail.tls);
    });
  }
}
