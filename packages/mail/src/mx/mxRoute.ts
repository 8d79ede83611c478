import type { Resolver } from "node:dns/promises";

export interface MxRecord {
  exchange: string;
  priority: number;
}

/** Where mail for a domain goes, or why it cannot go (permanently: `bounced`; for now: `deferred`). */
export type MxRoute = { kind: "hosts"; hosts: string[] } | { kind: "bounced" | "deferred"; response: string };

/**
 * RFC 5321 §5.1: the most preferred (lowest) MX first, equal preferences in random order to spread
 * load; no MX record means the domain itself is the host (implicit MX). RFC 7505: a single MX of "."
 * says the domain accepts no mail.
 */
export function mxHostsInOrder(domain: string, records: MxRecord[], random: () => number = Math.random): MxRoute {
  if (records.length === 0) return { kind: "hosts", hosts: [domain] };
  if (records.length === 1 && (records[0]!.exchange === "" || records[0]!.exchange === ".")) {
    return { kind: "bounced", response: `${domain} accepts no mail (null MX, RFC 7505)` };
  }
  const shuffled = records.map((r) => ({ ...r, tiebreak: random() }));
  shuffled.sort((a, b) => a.priority - b.priority || a.tiebreak - b.tiebreak);
  return { kind: "hosts", hosts: shuffled.map((r) => r.exchange.replace(/\.$/, "")) };
}

const dnsCode = (error: unknown) => (error as { code?: string }).code;

export async function resolveMxRoute(resolver: Resolver, domain: string): Promise<MxRoute> {
  try {
    return mxHostsInOrder(domain, await resolver.resolveMx(domain));
  } catch (error) {
    if (dnsCode(error) === "ENODATA") return mxHostsInOrder(domain, []);
    if (dnsCode(error) === "ENOTFOUND") return { kind: "bounced", response: `${domain} does not exist (NXDOMAIN)` };
    return { kind: "deferred", response: `MX lookup for ${domain} failed: ${dnsCode(error) ?? (error as Error).message}` };
  }
}

/** A host's addresses, IPv4 first. A lookup that fails leaves that family out. */
export async function resolveAddresses(resolver: Resolver, host: string): Promise<string[]> {
  const [v4, v6] = await Promise.all([resolver.resolve4(host).catch(() => []), resolver.resolve6(host).catch(() => [])]);
  return [...v4, ...v6];
}
