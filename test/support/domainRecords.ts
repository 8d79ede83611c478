import type { Resend } from "resend";
import type { DnsResponder } from "@tidings/testkit";

export type Domain = NonNullable<Awaited<ReturnType<Resend["domains"]["get"]>>["data"]>;
export type WireRecord = Domain["records"][number];

/** What a domain's owner does at their DNS provider: publishes the records on the loopback DNS server, except those left out. */
export function publishRecords(dns: DnsResponder, records: WireRecord[], leaveOut: (r: WireRecord) => boolean = () => false): void {
  for (const record of records.filter((r) => !leaveOut(r))) {
    const entry = (dns.zone[record.name] ??= {});
    if (record.type === "TXT") (entry.TXT ??= []).push(record.value);
    if (record.type === "MX") (entry.MX ??= []).push({ priority: record.priority ?? 10, exchange: record.value });
    if (record.type === "CNAME") (entry.CNAME ??= []).push(record.value);
  }
}

/** Polls the domain through the SDK until `until` holds; throws showing the last state after `timeoutMs`. */
export async function waitForDomain(resend: Resend, id: string, until: (d: Domain) => boolean, timeoutMs = 15_000): Promise<Domain> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data } = await resend.domains.get(id);
    if (data && until(data)) return data;
    if (Date.now() > deadline) throw new Error(`domain never reached the expected state; it is ${JSON.stringify(data)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
