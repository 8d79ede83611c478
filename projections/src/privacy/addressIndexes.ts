import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import type { SubjectMatch } from "./erasedSubject.js";
import type { Counts, ScrubTarget } from "./scrubTargets.js";

export const auditTables = ["audit_refs", "audit_contact_addresses"] as const;
export const suppressionTables = ["suppressions"] as const;

/**
 * The audit index's rows keyed by the address go (it keys addresses lower-cased and bare): a replay of the
 * opened events finds a placeholder where the address was, which names nothing, so a rebuild makes no row
 * either. The events themselves stay indexed by their ids.
 */
export async function scrubSubjectAudit(database: Database, target: ScrubTarget, subject: SubjectMatch): Promise<Counts> {
  const refs = target.table("audit_refs");
  const contacts = target.table("audit_contact_addresses");
  const keyed = await sql`DELETE FROM ${sql.table(refs)} WHERE key = ${subject.address} AND team_id = ${subject.teamId}`.execute(
    database.db,
  );
  const addresses = await sql`
    DELETE FROM ${sql.table(contacts)} WHERE email = ${subject.address} AND team_id = ${subject.teamId}`.execute(database.db);
  return { [refs]: Number(keyed.numAffectedRows ?? 0), [contacts]: Number(addresses.numAffectedRows ?? 0) };
}

/**
 * A suppression outlives the erasure (docs/privacy.md): its row stays, listed under the placeholder, as a
 * rebuild lists it, and the send path finds it by the address's hash, which the row keeps. Only `email`
 * is written. A row already listed under the placeholder (the address suppressed again after an earlier
 * erasure) is the same subject's: the newer one, which would collide with it on the key, goes, and the
 * subject stays suppressed.
 */
export async function scrubSubjectSuppressions(database: Database, target: ScrubTarget, subject: SubjectMatch): Promise<Counts> {
  const suppressions = target.table("suppressions");
  const listed = await sql`
    UPDATE ${sql.table(suppressions)} SET email = ${subject.placeholder}
     WHERE team_id = ${subject.teamId} AND email = ${subject.address}
       AND NOT EXISTS (SELECT 1 FROM ${sql.table(suppressions)} WHERE team_id = ${subject.teamId} AND email = ${subject.placeholder})`.execute(
    database.db,
  );
  const merged = await sql`
    DELETE FROM ${sql.table(suppressions)} WHERE team_id = ${subject.teamId} AND email = ${subject.address}`.execute(database.db);
  return { [suppressions]: Number(listed.numAffectedRows ?? 0) + Number(merged.numAffectedRows ?? 0) };
}
