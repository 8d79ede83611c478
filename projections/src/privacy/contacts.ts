import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import type { SubjectMatch } from "./erasedSubject.js";
import type { Counts, ScrubTarget } from "./scrubTargets.js";

export const contactTables = ["contacts"] as const;

/**
 * A contact with the subject's address, left by an erasure that was not its deletion (`tidings erase`):
 * its address and names read as the placeholder and its properties `{}`, as its opened events give them,
 * all sealed under the subject's key. A deleted contact's row goes with `ContactErased` already.
 * Addresses are stored lower-cased (`normalContactEmail`), so the team's index on them finds it.
 */
export async function scrubSubjectContacts(database: Database, target: ScrubTarget, subject: SubjectMatch): Promise<Counts> {
  const contacts = target.table("contacts");
  const result = await sql`
    UPDATE ${sql.table(contacts)} SET
      email = ${subject.placeholder},
      first_name = CASE WHEN first_name IS NULL THEN NULL ELSE ${subject.placeholder} END,
      last_name = CASE WHEN last_name IS NULL THEN NULL ELSE ${subject.placeholder} END,
      properties = '{}'::jsonb
    WHERE team_id = ${subject.teamId} AND email = ${subject.address}`.execute(database.db);
  return { [contacts]: Number(result.numAffectedRows ?? 0) };
}
