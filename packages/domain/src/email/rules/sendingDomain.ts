import { DomainError } from "../../decider.js";
import { isEligibleForSending, type LiveDomain } from "../../domain/decider.js";
import { normalizeDomainName } from "../../domain/rules.js";
import { parseMailbox } from "./address.js";

/** The domain name a `from` is on, as domains are registered (lower case, an IDN as punycode). */
export function sendingDomainName(from: string): string {
  const written = parseMailbox(from)!.address.split("@")[1]!.toLowerCase();
  return normalizeDomainName(written) ?? written;
}

export interface SendingDomainCheck {
  /** The name the `from` is on (`sendingDomainName`). */
  name: string;
  /** The live domain holding that name, whichever team's, or undefined: nobody's. */
  holder: LiveDomain | undefined;
  teamId: string;
  /** TIDINGS_ALLOW_UNVERIFIED_FROM: a `from` on a domain that is not verified, or on none of the team's. */
  allowUnverified: boolean;
  /** The one domain a restricted sending key may send from; null for a key without that restriction. */
  restrictedTo: string | null;
}

/**
 * The rule every email's `from` is held to, whoever queues it (a send, a broadcast, an automation step):
 * it must be on a domain of the team that is verified (DKIM and SPF) with sending enabled, unless the
 * setting relaxes the verification (never the team's own `sending: disabled`). The domain is what the
 * delivery saga signs with; null when the `from` is on none of the team's domains.
 */
export function checkSendingDomain(check: SendingDomainCheck): { domainId: string | null } | DomainError {
  const { name, holder, teamId } = check;
  const domain = holder?.teamId === teamId ? holder : undefined;
  if (check.restrictedTo !== null && check.restrictedTo !== domain?.domainId)
    return new DomainError(
      "sending_domain_restricted",
      "This API key may only send from the domain it is restricted to; the `from` address uses another domain.",
    );
  if (domain?.settings.capabilities.sending === "disabled")
    return new DomainError(
      "sending_domain_restricted",
      `The \`${name}\` domain has sending disabled. Enable it in the domain's \`capabilities\` first.`,
    );
  if (!check.allowUnverified && !(domain && isEligibleForSending(domain)))
    return new DomainError(
      "sending_domain_restricted",
      `The \`${name}\` domain is not verified. Add and verify it before sending from it.`,
    );
  return { domainId: domain?.domainId ?? null };
}
