import type { Database } from "@tidings/postgres";
import { auditTables, scrubSubjectAudit, scrubSubjectSuppressions, suppressionTables } from "./addressIndexes.js";
import { runTables, scrubSubjectRuns } from "./automationRuns.js";
import { broadcastTables, scrubSubjectBroadcasts } from "./broadcasts.js";
import { importTables, scrubSubjectImports } from "./contactImports.js";
import { contactTables, scrubSubjectContacts } from "./contacts.js";
import { emailTables, scrubSubjectEmails } from "./emails.js";
import { subjectMatch, type ErasedSubject, type SubjectMatch } from "./erasedSubject.js";
import { inboundTables, scrubSubjectInbound } from "./inboundEmails.js";
import { scrubSubjectOperational } from "./operationalTables.js";
import { addCounts, scrubTargets, type Counts, type ScrubTarget } from "./scrubTargets.js";
import { scrubSubjectWebhooks, webhookTables } from "./webhookDeliveries.js";

type Scrub = (database: Database, target: ScrubTarget, subject: SubjectMatch) => Promise<Counts>;

/** Each scrub with the tables it writes. */
const scrubs: [readonly string[], Scrub][] = [
  [emailTables, scrubSubjectEmails],
  [inboundTables, scrubSubjectInbound],
  [contactTables, scrubSubjectContacts],
  [broadcastTables, scrubSubjectBroadcasts],
  [importTables, scrubSubjectImports],
  [webhookTables, scrubSubjectWebhooks],
  [runTables, scrubSubjectRuns],
  [auditTables, scrubSubjectAudit],
  [suppressionTables, scrubSubjectSuppressions],
];

/**
 * Erasure reaching the read models (docs/privacy.md): once a subject's keys are shredded, the rows the
 * projections wrote from the opened events still hold the values in clear. This makes each of the team's
 * rows read as a rebuild from the events would now make it: the subject's address, in any case and as a
 * mailbox, becomes `erased:<tag>`, and the content keyed with the subject's key (an email the
 * subject received, a webhook payload naming them) becomes its stream's placeholder, `{}`
 * or no rows, as the events open to. Ids, statuses, counts and times stay, and so do suppressions.
 *
 * Call it once the read models have applied the erasure's position (`SubjectErasure.position`): a row
 * written later from an event opened before the shredding would escape it. Each statement reaches only
 * the team's rows, through the team's indexes, a page at a time. Repeating it changes nothing more, and
 * a run that stopped part-way is finished by the next. Resolves with the rows changed per table.
 */
export async function scrubErasedSubject(database: Database, subject: ErasedSubject): Promise<Record<string, number>> {
  const match = subjectMatch(subject);
  const counts: Counts = {};
  for (const target of await scrubTargets(database)) {
    for (const [tables, scrub] of scrubs) if (target.reaches(tables)) addCounts(counts, await scrub(database, target, match));
    if (target.live) addCounts(counts, await scrubSubjectOperational(database, match));
  }
  return counts;
}
