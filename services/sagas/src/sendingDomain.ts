import { loadState } from "@tidings/commands";
import { domainDecider, domainStream } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { openDkimPrivateKey, type DkimKey, type TlsPolicy } from "@tidings/mail";

/** What the sender's domain asks of a delivery: the key to sign with, and whether TLS is required. */
export interface SendingDomain {
  dkim?: DkimKey;
  tls: TlsPolicy;
}

const noDomain: SendingDomain = { tls: "opportunistic" };

/**
 * Reads an email's sending domain from its stream (never behind, unlike a read model). An email sent
 * from no domain of the team (TIDINGS_ALLOW_UNVERIFIED_FROM) goes unsigned and opportunistic.
 */
export function sendingDomains(store: EventStore, secret: string | undefined): (domainId: string | null) => Promise<SendingDomain> {
  return async (domainId) => {
    if (domainId === null) return noDomain;
    const domain = await loadState(store, domainStream(domainId), domainDecider);
    if (domain.status !== "active") return noDomain;
    if (!secret) throw new Error("no TIDINGS_SECRET to open DKIM keys with: pass the runtime's secret to startSagas");
    const privateKey = openDkimPrivateKey(secret, domain.dkim.sealedPrivateKey);
    return { tls: domain.settings.tls, dkim: { domainName: domain.name, keySelector: domain.dkim.selector, privateKey } };
  };
}
