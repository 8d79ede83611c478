import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPrivateAddress } from "@tidings/core";

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
  const refused = addresses.find((a) => isPrivateAddress(a.address));
  if (refused && !allowPrivate)
    throw new RefusedAddressError(`${host} resolves to ${refused.address}, a private, loopback or link-local address`);
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
