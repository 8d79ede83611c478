import type { Database } from "@tidings/postgres";
import type { ContentKind } from "@tidings/privacy";
import { expireRuns, runTables } from "./automationRuns.js";
import { expireImports, importTables } from "./contactImports.js";
import { emailTables, expireEmails } from "./emails.js";
import { expireInbound, inboundTables } from "./inboundEmails.js";
import { addCounts, scrubTargets, type Counts, type ScrubTarget } from "./scrubTargets.js";
import { expireWebhooks, webhookTables } from "./webhookDeliveries.js";

type Expire = (database: Database, target: ScrubTarget, before: Date) => Promise<Counts>;

/** Where each kind of content shows in the read models. Custom events have none of their own; runs quote them. */
const expiries: Record<ContentKind, [readonly string[], Expire]> = {
  email: [emailTables, expireEmails],
  inbound: [inboundTables, expireInbound],
  webhook: [webhookTables, expireWebhooks],
  event: [runTables, expireRuns],
  import: [importTables, expireImports],
};

/**
 * Retention reaching the read models (docs/privacy.md): the rows created before `before` lose their
 * content of a kind, as the events open it once their period keys are shredded (at most one period
 * later), each row's text reading its stream's content placeholder (`contentTag`, worked out per row),
 * and a list or object reading empty. Addresses, ids, statuses, counts and times stay.
 *
 * The whole table is read in pages of its primary key, a bounded statement each, so a sweep costs a read
 * of the table whatever it finds; rows already erased are left. The row's creation time stands for its
 * content's, recorded by the same append. Repeating it changes nothing more. Resolves with the rows
 * changed per table.
 */
export async function scrubExpiredContent(
  database: Database,
  expiry: { kind: ContentKind; before: Date },
): Promise<Record<string, number>> {
  const [tables, expire] = expiries[expiry.kind];
  const counts: Counts = {};
  for (const target of await scrubTargets(database))
    if (target.reaches(tables)) addCounts(counts, await expire(database, target, expiry.before));
  return counts;
}
