import { Resolver } from "node:dns/promises";
import { recordMatches, type DnsRecord, type RecordResult } from "@tidings/domain";

export type RecordLookup = (record: DnsRecord) => Promise<RecordResult>;

/** Answers that say the record is not there: a wrong or missing value is `failed`, not worth a quicker retry. */
const absent = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN", "NODATA"]);

async function answersFor(resolver: Resolver, record: DnsRecord): Promise<string[]> {
  switch (record.type) {
    case "TXT":
      return (await resolver.resolveTxt(record.name)).map((chunks) => chunks.join(""));
    case "MX":
      return (await resolver.resolveMx(record.name)).map((mx) => mx.exchange);
    case "CNAME":
      return resolver.resolveCname(record.name);
  }
}

/**
 * Resolves records through DNS_SERVERS (the system's resolvers when empty). A SERVFAIL, a timeout or a
 * refused query is a `temporary_failure`: it says nothing about the record, so the re-checks go on.
 */
export function createRecordLookup(options: { dnsServers: string[]; timeoutMs?: number }): RecordLookup {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 5_000, tries: 2 });
  if (options.dnsServers.length) resolver.setServers(options.dnsServers);
  return async (record) => {
    const found = { key: record.key, name: record.name, value: record.value };
    try {
      return { ...found, status: recordMatches(record, await answersFor(resolver, record)) ? "verified" : "failed" };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "";
      return { ...found, status: absent.has(code) ? "failed" : "temporary_failure" };
    }
  };
}
