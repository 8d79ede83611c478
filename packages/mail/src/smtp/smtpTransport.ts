import { createTransport, type Transporter } from "nodemailer";
import SMTPPool from "nodemailer/lib/smtp-pool/index.js";
import { summarizeOutcome } from "../deliveryOutcome.js";
import type { MailTransport, TlsPolicy } from "../port.js";
import { deliverOverSmtp } from "../smtpReply.js";
import { socketWithoutDelay } from "../socketWithoutDelay.js";

export interface SmtpRelayOptions {
  /** `smtp://user:pass@host:port` or `smtps://…`; nodemailer reads options from the query too (`?tls.rejectUnauthorized=false`). */
  url: string;
  /** Connections kept open to the relay; sends beyond them wait for a free one. */
  maxConnections: number;
}

/**
 * Relays every email through one SMTP server over a pool of connections. The relay hop is all we see,
 * so a domain's `enforced` TLS is held to on this hop: such mail goes through a second pool that
 * requires STARTTLS (or `smtps://`), and fails when the relay does not offer it.
 */
export function createSmtpTransport(options: SmtpRelayOptions): MailTransport {
  const pools = new Map<TlsPolicy, Transporter<SMTPPool.SentMessageInfo>>();
  const pool = (tls: TlsPolicy) => {
    let transporter = pools.get(tls);
    if (!transporter) {
      // Options beside a `url` are dropped by createTransport (it keeps only what the URL says), so the
      // pool is built here, where the URL's options are merged over ours.
      const smtpPool = new SMTPPool({
        pool: true,
        url: options.url,
        maxConnections: options.maxConnections,
        maxMessages: 1000,
        requireTLS: tls === "enforced",
        connectionTimeout: 30_000,
        greetingTimeout: 30_000,
        socketTimeout: 120_000,
        getSocket: socketWithoutDelay,
      });
      transporter = createTransport(smtpPool);
      pools.set(tls, transporter);
    }
    return transporter;
  };

  const inFlight = new Set<Promise<unknown>>();
  return {
    async send(mail) {
      const transporter = pool(mail.tls);
      const sending = deliverOverSmtp(() => transporter.sendMail({ envelope: mail.envelope, raw: mail.raw }), mail);
      inFlight.add(sending);
      try {
        return summarizeOutcome(await sending);
      } finally {
        inFlight.delete(sending);
      }
    },
    async close() {
      await Promise.allSettled(inFlight);
      for (const transporter of pools.values()) transporter.close();
      pools.clear();
    },
  };
}
