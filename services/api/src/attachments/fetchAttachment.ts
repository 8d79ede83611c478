import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isPrivateAddress, TidingsError } from "@tidings/core";

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
}

const refused = (index: number, why: string) => new TidingsError("invalid_attachment", `Invalid \`attachments[${index}].path\`: ${why}`);

/**
 * Fetches a `path` attachment. The host is resolved here and the connection made to the address that was
 * checked, so a DNS answer cannot change between the check and the connect. Redirects are not followed:
 * each hop would need the same check.
 */
export async function fetchAttachment(
  url: string,
  index: number,
  limits: FetchLimits,
): Promise<{ bytes: Buffer; contentType: string | null }> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await dnsLookup(host, { all: true }).catch(() => []);
  if (addresses.length === 0) throw refused(index, `the host \`${host}\` does not resolve.`);
  if (addresses.some((a) => isPrivateAddress(a.address)))
    throw refused(index, "private, loopback and link-local addresses are not fetched.");
  const chosen = addresses[0]!;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [chosen]);
    else callback(null, chosen.address, chosen.family);
  };
  const client = target.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(target, { lookup: pinned, timeout: limits.timeoutMs }, (response) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        response.resume();
        reject(refused(index, `fetching it answered HTTP ${status}.`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) {
          request.destroy();
          reject(new TidingsError("invalid_attachment", "Attachments exceed the limit of 40 MB per email (after base64 encoding)."));
          return;
        }
        chunks.push(chunk);
      });
      response.on("end", () =>
        resolve({ bytes: Buffer.concat(chunks), contentType: response.headers["content-type"]?.split(";")[0]?.trim() ?? null }),
      );
      response.on("error", () => reject(refused(index, "the download broke off.")));
    });
    // The socket timeout only bounds silence; a server trickling a byte at a time must hit a total
    // deadline too, or the request outlives its idempotency key's reservation.
    const tooSlow = () => {
      request.destroy();
      reject(refused(index, `fetching it took longer than ${limits.timeoutMs} ms.`));
    };
    const deadline = setTimeout(tooSlow, limits.timeoutMs);
    request.on("close", () => clearTimeout(deadline));
    request.on("timeout", tooSlow);
    request.on("error", (error) => reject(error instanceof TidingsError ? error : refused(index, "it could not be fetched.")));
  });
}
