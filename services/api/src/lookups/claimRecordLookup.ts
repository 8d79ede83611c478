import { Resolver } from "node:dns/promises";
import type { ClaimRecord } from "@tidings/domain";

const absent = new Set(["ENOTFOUND", "ENODATA"]);

/**
 * Whether the claim's TXT record is published, asked of DNS_SERVERS (the system's resolvers when empty).
 * Undefined when it is; otherwise the claim's `failure_reason`.
 */
export async function missingClaimRecord(dnsServers: string[], record: ClaimRecord): Promise<string | undefined> {
  const resolver = new Resolver({ timeout: 5_000, tries: 2 });
  if (dnsServers.length) resolver.setServers(dnsServers);
  try {
    const answers = (await resolver.resolveTxt(record.name)).map((chunks) => chunks.join("").trim());
    if (answers.includes(record.value)) return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    if (!absent.has(code)) return `The DNS lookup of \`${record.name}\` failed (${code || "unknown error"}); verify again later.`;
  }
  return `No TXT record \`${record.value}\` was found at \`${record.name}\`.`;
}
