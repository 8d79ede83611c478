import { failedWith, inSpan, tracingEnabled } from "@tidings/core";
import type { MailTransport } from "./port.js";

/**
 * The mail transport with its sends traced (docs/operations.md, "Traces"): a client span per send, from
 * connecting to the relay's or MX's last reply, with the outcome and the reply code; a send that did not
 * deliver every recipient is marked failed. `transport` is MAIL_TRANSPORT's value. With tracing off it is
 * the transport itself.
 */
export function traceMailTransport(inner: MailTransport, transport: string): MailTransport {
  if (!tracingEnabled()) return inner;
  return {
    send: (mail) =>
      inSpan(
        `send ${transport}`,
        "client",
        { "tidings.mail.transport": transport, "tidings.email.id": mail.emailId, "tidings.mail.recipients": mail.envelope.to.length },
        async (span) => {
          const outcome = await inner.send(mail);
          span.setAttribute("tidings.mail.outcome", outcome.kind);
          if (outcome.code !== undefined) span.setAttribute("tidings.smtp.reply_code", outcome.code);
          const undelivered = outcome.perRecipient?.filter((r) => r.kind !== "delivered").length ?? (outcome.kind === "delivered" ? 0 : 1);
          if (undelivered > 0) failedWith(span, `${outcome.kind}: not every recipient was delivered`);
          return outcome;
        },
      ),
    close: () => inner.close(),
  };
}
