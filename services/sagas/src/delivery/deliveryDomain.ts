import { loadState } from "@tidings/commands";
import { domainDecider, domainStream, type LiveDomain } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { openDkimPrivateKey, type DkimKey, type TlsPolicy } from "@tidings/mail";

/** Where a domain's tracked links point, and what it tracks. */
export interface DomainTracking {
  baseUrl: string;
  opens: boolean;
  clicks: boolean;
}

/** What the sender's domain asks of a delivery: the key to sign with, whether TLS is required, what to track. */
export interface DeliveryDomain {
  dkim?: DkimKey;
  /**
   * The domain's return path (`<custom_return_path>.<domain>`), where the envelope sender goes
   * (`bounceAddresses`), once its MX verified: before that, a bounce sent there would reach nobody.
   */
  returnPath?: string;
  tls: TlsPolicy;
  tracking?: DomainTracking;
}

const noDomain: DeliveryDomain = { tls: "opportunistic" };

/**
 * A domain's tracking, if any: under TRACKING_BASE_URL when set, else on its own tracking subdomain, and
 * only once that subdomain's CNAME is verified, since a link through a name that does not resolve to us
 * would be a dead link in the recipient's inbox.
 */
export function trackingOf(domain: LiveDomain, trackingBaseUrl: string | null): DomainTracking | undefined {
  const { openTracking, clickTracking, trackingSubdomain } = domain.settings;
  if (!openTracking && !clickTracking) return undefined;
  if (trackingBaseUrl === null && domain.records.find((r) => r.key === "tracking")?.status !== "verified") return undefined;
  return { baseUrl: trackingBaseUrl ?? `https://${trackingSubdomain}.${domain.name}`, opens: openTracking, clicks: clickTracking };
}

/**
 * Reads an email's sending domain from its stream (never behind, unlike a read model). An email sent
 * from no domain of the team (TIDINGS_ALLOW_UNVERIFIED_FROM) goes unsigned, opportunistic and untracked.
 */
export function deliveryDomains(
  store: EventStore,
  secret: string | undefined,
  trackingBaseUrl: string | null = null,
): (domainId: string | null) => Promise<DeliveryDomain> {
  return async (domainId) => {
    if (domainId === null) return noDomain;
    const domain = await loadState(store, domainStream(domainId), domainDecider);
    if (domain.status !== "active") return noDomain;
    if (!secret) throw new Error("no TIDINGS_SECRET to open DKIM keys with: pass the runtime's secret to startSagas");
    const privateKey = openDkimPrivateKey(secret, domain.dkim.sealedPrivateKey);
    const tracking = trackingOf(domain as LiveDomain, trackingBaseUrl);
    return {
      tls: domain.settings.tls,
      dkim: { domainName: domain.name, keySelector: domain.dkim.selector, privateKey },
      ...(domain.records.find((r) => r.key === "spf-mx")?.status === "verified"
        ? { returnPath: `${domain.settings.customReturnPath}.${domain.name}` }
        : {}),
      ...(tracking ? { tracking } : {}),
    };
  };
}
