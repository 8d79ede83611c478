import { sql } from "kysely";
import { bareAddresses, type SuppressedAddress, type SuppressionOrigin } from "@tidings/domain";
import { isUndefinedTable, type Database } from "@tidings/postgres";
import type { SubjectHasher } from "@tidings/privacy";

/**
 * Which of these recipients are on the team's suppression list, and how they got there; bare addresses,
 * lower-cased and sorted. Every way of sending asks it: the api when it accepts a send, a broadcast's
 * fan-out, an automation step, and delivery again for an email that goes out later than it was queued.
 * An address erased while suppressed is still found, by its keyed hash (docs/privacy.md), and answered
 * with the address asked about.
 */
export type SuppressedRecipients = (teamId: string, recipients: string[]) => Promise<SuppressedAddress[]>;

interface Waiting {
  teamId: string;
  addresses: string[];
  resolve(suppressed: SuppressedAddress[]): void;
  reject(error: unknown): void;
}

/** Queries in flight at once; sends arriving while they are busy wait and go together in the next one. */
const IN_FLIGHT = 2;

/**
 * The `suppressions` read model, asked once for every lookup waiting at the same time: a lookup that finds
 * a query slot free goes at once, alone; lookups arriving while every slot is busy go together in the next
 * query, one round trip for all of them. At low load this is one query per lookup; under load it was the
 * api's most frequent round trip, now a fraction of one per send.
 */
export function suppressedRecipients(database: Database, hashSubject: SubjectHasher): SuppressedRecipients {
  const queue: Waiting[] = [];
  let busy = 0;

  const query = async (batch: Waiting[]) => {
    const teams = batch.flatMap((w) => w.addresses.map(() => w.teamId));
    const emails = batch.flatMap((w) => w.addresses);
    const hashes = batch.flatMap((w) => w.addresses.map((address) => hashSubject(w.teamId, address)));
    const rows = await suppressionsOf(database, teams, emails, hashes);
    const found = new Map(rows.map((r) => [`${r.team_id} ${r.email}`, r.origin]));
    for (const w of batch)
      w.resolve(
        [...new Set(w.addresses)].sort().flatMap((email) => {
          const origin = found.get(`${w.teamId} ${email}`);
          return origin ? [{ email, origin }] : [];
        }),
      );
  };

  const pump = () => {
    while (busy < IN_FLIGHT && queue.length > 0) {
      const batch = queue.splice(0);
      busy++;
      query(batch)
        .catch((error: unknown) => {
          for (const w of batch) w.reject(error);
        })
        .finally(() => {
          busy--;
          pump();
        });
    }
  };

  return (teamId, recipients) =>
    new Promise<SuppressedAddress[]>((resolve, reject) => {
      if (recipients.length === 0) return resolve([]);
      queue.push({ teamId, addresses: bareAddresses(recipients), resolve, reject });
      pump();
    });
}

/**
 * The list's rows for these addresses, each named by the address asked about: its own row, or the row it
 * was listed under since its erasure, which holds a placeholder and the address's hash. A hash is per
 * team, so another team's row never matches. Where an address has both, its own row comes last, and its
 * origin is the one kept. Two joins rather than one with OR, which no index serves.
 */
async function suppressionsOf(database: Database, teams: string[], emails: string[], hashes: string[]) {
  const byAddress = sql`SELECT w.team_id::text AS team_id, w.email, s.origin, true AS own FROM w
    JOIN suppressions s ON s.team_id = w.team_id AND s.email = w.email`;
  const byHash = sql`SELECT w.team_id::text AS team_id, w.email, s.origin, false AS own FROM w
    JOIN suppressions s ON s.team_id = w.team_id AND s.email_hash = w.hash`;
  const query = (...joins: (typeof byAddress)[]) =>
    sql<SuppressedRow>`WITH w AS (SELECT * FROM unnest(${teams}::uuid[], ${emails}::text[], ${hashes}::text[]) AS w(team_id, email, hash))
      ${sql.join(joins, sql` UNION ALL `)} ORDER BY own`.execute(database.db);
  try {
    return (await query(byHash, byAddress)).rows;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    // A process can start before the projector has created the read model: nothing is suppressed yet.
    if (isUndefinedTable(error)) return [];
    // The version before `email_hash` still serves while its successor is built: by address, as it did.
    if (code === UNDEFINED_COLUMN && message?.includes("email_hash")) return (await query(byAddress)).rows;
    throw error;
  }
}

interface SuppressedRow {
  team_id: string;
  email: string;
  origin: SuppressionOrigin;
}

/** PostgreSQL's SQLSTATE for a column that does not exist. */
const UNDEFINED_COLUMN = "42703";
