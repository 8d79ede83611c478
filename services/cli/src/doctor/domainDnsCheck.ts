import type { Config } from "@tidings/core";
import { readModels } from "@tidings/projections";
import { createRecordLookup } from "@tidings/sagas";
import type { Database } from "@tidings/postgres";
import type { CheckResult } from "./installationChecks.js";

/** Domains looked up at most, newest first: past this the check says how many it left out. */
const MAX_DOMAINS = 200;
/** Lookups in flight at once. */
const PARALLEL = 8;

/**
 * Every domain's required records, looked up now through DNS_SERVERS, as the domain verification saga does:
 * a record missing or wrong since it was verified stops mail from being authenticated, and nothing else says
 * so until receivers start refusing it. The advised DMARC record is not required, so it is not checked.
 */
export async function domainDnsCheck(config: Config, database: Database): Promise<CheckResult> {
  const check = "domain DNS";
  const domains = await readModels(database)
    .selectFrom("domains")
    .select(["name", "records"])
    .orderBy("created_at", "desc")
    .limit(MAX_DOMAINS + 1)
    .execute();
  if (domains.length === 0) return { check, ok: true, detail: "no domains" };
  const lookup = createRecordLookup({ dnsServers: config.DNS_SERVERS, timeoutMs: 3_000 });
  const pending = domains
    .slice(0, MAX_DOMAINS)
    .flatMap((d) => d.records.filter((r) => r.record !== "DMARC").map((r) => ({ domain: d.name, r })));
  const wrong: string[] = [];
  for (let i = 0; i < pending.length; i += PARALLEL) {
    const results = await Promise.all(pending.slice(i, i + PARALLEL).map(async ({ domain, r }) => ({ domain, r, found: await lookup(r) })));
    for (const { domain, r, found } of results)
      if (found.status !== "verified") wrong.push(`${domain} ${r.record} ${r.type} ${r.name} ${found.status.replace("_", " ")}`);
  }
  const checked = Math.min(domains.length, MAX_DOMAINS);
  const counted = `${checked} domain${checked === 1 ? "" : "s"}${domains.length > MAX_DOMAINS ? " (the newest; more not checked)" : ""}`;
  if (wrong.length === 0) return { check, ok: true, detail: `${counted}: ${pending.length} records as expected` };
  return {
    check,
    ok: false,
    detail: `${wrong.length} of ${pending.length} records not as expected: ${wrong.slice(0, 10).join("; ")}${wrong.length > 10 ? "; …" : ""}`,
    fix: "publish each record as GET /domains/:id (or the dashboard's domain page) lists it, then POST /domains/:id/verify",
  };
}
