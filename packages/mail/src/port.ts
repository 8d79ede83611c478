/**
 * The mail transport port: hands one composed message to the world and says what became of it. The
 * delivery saga turns the outcome into events (EmailDelivered, EmailDeliveryDelayed, EmailBounced,
 * EmailFailed). Adapters: `outbox/` (files), `smtp/` (a relay), `mx/` (direct to each domain's MX).
 */

/** `enforced`: no TLS, no delivery (the email fails with a reason). `opportunistic`: STARTTLS when offered. */
export type TlsPolicy = "opportunistic" | "enforced";

export interface OutgoingMail {
  /** Names the delivery (outbox file name, log lines); the same id on a retry means the same email. */
  emailId: string;
  /** The SMTP envelope: bcc recipients are here and not in the message's headers. */
  envelope: { from: string; to: string[] };
  /** The message as `composeMessage` produced it, signed when the domain has a key. */
  raw: Buffer;
  tls: TlsPolicy;
}

/**
 * - `delivered`: a 2xx after DATA (for the outbox: the file is in place).
 * - `deferred`: 4xx, a connection or DNS failure that may pass; try again later.
 * - `bounced`: 5xx, or a domain that does not exist or accepts no mail; do not try again.
 * - `failed`: not attempted because a requirement of ours could not be met (enforced TLS not offered).
 */
export type DeliveryKind = "delivered" | "deferred" | "bounced" | "failed";

export interface RecipientOutcome {
  recipient: string;
  kind: DeliveryKind;
  /** The SMTP reply code, when a server answered. */
  code?: number;
  response: string;
}

/**
 * The outcome of one `send`. With several recipients, `kind` sums them up: `deferred` when any recipient
 * was deferred (retry only those: the others are done), else `delivered` when any was delivered (the rest
 * bounced or failed, see `perRecipient`), else `failed` when any failed, else `bounced`. The adapters here
 * always fill `perRecipient`, one entry per envelope recipient, in envelope order.
 */
export interface DeliveryOutcome {
  kind: DeliveryKind;
  code?: number;
  response: string;
  perRecipient?: RecipientOutcome[];
}

export interface MailTransport {
  /** Never throws for a delivery problem: every problem is an outcome. Throws only on a programming error. */
  send(mail: OutgoingMail): Promise<DeliveryOutcome>;
  /** Waits until every send already made has its outcome, then closes the connections. */
  close(): Promise<void>;
}
