import type { RecipientResult } from "@tidings/domain";
import type { DeliveryOutcome } from "@tidings/mail";

/**
 * One result per envelope recipient, as the email decider records them. The transports report each
 * recipient; one that does not (or leaves a recipient out) gives its overall outcome to those it did not
 * name, so no recipient is left pending without a retry.
 */
export function recipientResults(outcome: DeliveryOutcome, envelopeTo: string[]): RecipientResult[] {
  return envelopeTo.map((recipient) => {
    const own = outcome.perRecipient?.find((r) => r.recipient === recipient) ?? outcome;
    return { recipient, kind: own.kind, code: own.code ?? null, response: own.response };
  });
}
