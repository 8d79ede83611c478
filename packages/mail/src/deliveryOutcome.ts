import type { DeliveryOutcome, RecipientOutcome } from "./port.js";

/** Sums per-recipient outcomes up into one, by the precedence documented on `DeliveryOutcome`. */
export function summarizeOutcome(perRecipient: RecipientOutcome[]): DeliveryOutcome {
  const first = (kind: RecipientOutcome["kind"]) => perRecipient.find((r) => r.kind === kind);
  const lead = first("deferred") ?? first("delivered") ?? first("failed") ?? first("bounced");
  if (!lead) throw new Error("a delivery outcome needs at least one recipient");
  return { kind: lead.kind, ...(lead.code !== undefined && { code: lead.code }), response: lead.response, perRecipient };
}

/** The same outcome for every recipient: a connection that failed, a message-level reply, the outbox. */
export function sameOutcomeForAll(recipients: string[], outcome: Omit<RecipientOutcome, "recipient">): DeliveryOutcome {
  return summarizeOutcome(recipients.map((recipient) => ({ recipient, ...outcome })));
}
