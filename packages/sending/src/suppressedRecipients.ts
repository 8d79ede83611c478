import { sql } from "kysely";
import { bareAddresses, type SuppressedAddress, type SuppressionOrigin } from "@tidings/domain";
import type { Database } from "@tidings/postgres";

/**
 * Which of these recipients are on the team's suppression list, and how they got there; bare addresses,
 * lower-cased and sorted. Every way of sending asks it: the api when it accepts a send, a broadcast's
 * fan-out, an automation step, and delivery again for an email that goes out later than it was queued.
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
export function suppressedRecipients(database: Database): SuppressedRecipients {
  const queue: Waiting[] = [];
  let busy = 0;

  const query = async (batch: Waiting[]) => {
    const teams = batch.flatMap((w) => w.addresses.map(() => w.teamId));
    const emails = batch.flatMap((w) => w.addresses);
    const rows = await suppressionsOf(database, teams, emails);
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

async function suppressionsOf(database: Database, teams: string[], emails: string[]) {
  try {
    const { rows } = await sql<{ team_id: string; email: string; origin: SuppressionOrigin }>`
      SELECT s.team_id::text AS team_id, s.email, s.origin FROM suppressions s
        JOIN unnest(${teams}::uuid[], ${emails}::text[]) AS w(team_id, email) ON s.team_id = w.team_id AND s.email = w.email`.execute(
      database.db,
    );
    return rows;
  } catch (error) {
    // A process can start before the projector has created the read model: nothing is suppressed yet.
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return [];
    throw error;
  }
}

/** PostgreSQL's SQLSTATE for a relation that does not exist. */
const UNDEFINED_TABLE = "42P01";
