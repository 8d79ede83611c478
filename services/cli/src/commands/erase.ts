import { isUuid, systemClock } from "@tidings/core";
import { eraseContact, eraseSubject, findContact, type ErasureDeps, type SubjectErasure } from "@tidings/audience";
import { reachCopies, teamIdForName, type CopiesReached } from "@tidings/api";
import { operationMetadata } from "@tidings/commands";
import { createCheckpointWaiter, productProjections } from "@tidings/projections";
import { countSealedEvents } from "@tidings/privacy";
import { sql } from "kysely";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";
import { UsageError } from "../usageError.js";

/** How long the scrub waits for the read models to apply the erasure before it scrubs anyway and says so. */
const CATCH_UP_MS = 30_000;

interface TeamErasure {
  teamId: string;
  contactId: string | null;
  subjectKeys: number;
  /** Stored events holding a value sealed under a shredded key: what now reads as erased. */
  events: number;
  copies: CopiesReached;
}

/**
 * `tidings erase <address> [--team <name or id>] [--json]` (docs/privacy.md): erases a data subject who
 * need not be a contact, such as a recipient of transactional mail, in one team or in every team. A
 * live contact with the address is erased as `DELETE /contacts` would. Prints what it reached, per team.
 */
export async function erase(runtime: Runtime, address: string, options: { team?: string | undefined; json: boolean }, out: CliOutput) {
  if (!/^[^\s@]+@[^\s@]+$/.test(address)) throw new UsageError("erase needs an email address");
  const teams = options.team ? [isUuid(options.team) ? options.team : teamIdForName(options.team.trim())] : await allTeams(runtime);
  const deps: ErasureDeps = {
    store: runtime.store,
    clock: systemClock,
    keys: runtime.privacy.keys,
    hashSubject: runtime.privacy.hashSubject,
  };
  const waiter = await createCheckpointWaiter(
    runtime.database,
    productProjections.map((p) => p.name),
  );
  const results: TeamErasure[] = [];
  try {
    for (const teamId of teams) {
      const metadata = operationMetadata("cli", systemClock, { teamId });
      const contact = await findContact(runtime.store, teamId, address);
      const subjects: SubjectErasure[] = contact
        ? ((await eraseContact(deps, teamId, contact.contactId, metadata)).erased?.subjects ?? [])
        : [await eraseSubject(deps, teamId, { address }, metadata)];
      const copies = await reachCopies(
        {
          database: runtime.database,
          waitFor: (position) => waiter.waitFor(position, CATCH_UP_MS),
          requestLogs: { flush: async () => {} },
        },
        teamId,
        subjects,
        contact?.contactId,
      );
      results.push({
        teamId,
        contactId: contact?.contactId ?? null,
        subjectKeys: subjects.reduce((n, s) => n + s.subjectKeys, 0),
        events: await countSealedEvents(
          runtime.storedEvents,
          subjects.flatMap((s) => s.keyIds),
        ),
        copies,
      });
    }
  } finally {
    await waiter.close();
  }
  if (options.json) out.out(JSON.stringify({ teams: results }));
  else for (const result of results) out.out(describe(result));
  if (results.some((r) => !r.copies.caughtUp)) {
    out.err("the read models had not applied the erasure in time (is a projector running?): run the same command again once they have");
  }
  return 0;
}

async function allTeams(runtime: Runtime): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`SELECT id::text FROM teams ORDER BY created_at`.execute(runtime.database.db);
  return rows.map((r) => r.id);
}

function describe(result: TeamErasure): string {
  const rows = Object.entries(result.copies.rows).filter(([, n]) => n > 0);
  const rowCount = rows.reduce((n, [, count]) => n + count, 0);
  return [
    `team ${result.teamId}${result.contactId ? ` (contact ${result.contactId})` : ""}:`,
    `events ${result.events} (keys shredded: ${result.subjectKeys});`,
    `read-model rows ${rowCount}${rows.length ? ` (${rows.map(([t, n]) => `${t} ${n}`).join(", ")})` : ""};`,
    `request logs ${result.copies.requestLogs}; files ${result.copies.blobs}`,
  ].join(" ");
}
