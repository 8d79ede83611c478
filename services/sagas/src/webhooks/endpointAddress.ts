import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** Where webhooks must not go (SSRF): private, loopback, link-local, shared, multicast and reserved ranges. */
const forbidden = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const)
  forbidden.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  forbidden.addSubnet(network, prefix, "ipv6");

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return forbidden.check(address, "ipv4");
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? forbidden.check(mapped[1]!, "ipv4") : forbidden.check(address, "ipv6");
}

export class RefusedAddressError extends Error {
  override readonly name = "RefusedAddressError";
}

export interface ResolvedEndpoint {
  address: string;
  family: 4 | 6;
}

/**
 * The address to connect to, resolved now (on every attempt, so a name that moved to a private address is
 * caught) and checked. One forbidden address among several refuses the name: a resolver could otherwise
 * alternate between them.
 */
export async function resolveEndpoint(hostname: string, allowPrivate: boolean): Promise<ResolvedEndpoint> {
  const host = hostname.replace(/^\[(.*)\]$/, "$1");
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal }] : await lookup(host, { all: true });
  if (addresses.length === 0) throw new RefusedAddressError(`${host} has no address`);
  const refused = addresses.find((a) => isForbiddenAddress(a.address));
  if (refused && !allowPrivate) throw new RefusedAddressError(`${host} resolves to ${refused.address}, a private, loopback or link-local address`);
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
