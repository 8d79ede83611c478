import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { mentions, type SubjectMatch } from "./erasedSubject.js";
import type { Counts } from "./scrubTargets.js";

const exists = async (database: Database, table: string) =>
  (await sql<{ found: boolean }>`SELECT to_regclass(${table}) IS NOT NULL AS found`.execute(database.db)).rows[0]!.found;

/**
 * The address as a request path or a stored body may hold it: as it is, or URL-encoded, in any case, and
 * not as the tail of a longer address (`xada@…`) or the head of a longer domain.
 */
function addressPattern(address: string): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const forms = [...new Set([address, encodeURIComponent(address)])].map(escape);
  return new RegExp(`(?<![\\w.+-])(?:${forms.join("|")})(?![\\w-]|\\.\\w)`, "gi");
}

interface IdempotencyRow {
  method: string;
  path: string;
  key: string;
  response_body: string | null;
}

/**
 * A kept answer to replay, whose path (`PATCH /contacts/ada@…`) or stored body names the subject, reads
 * the placeholder in their place. The key is part of the row's primary key with the path; where the new
 * path would collide with another key's row, the row goes instead (it expires within a day anyway).
 */
async function scrubIdempotencyKeys(database: Database, subject: SubjectMatch): Promise<number> {
  const encoded = encodeURIComponent(subject.address).toLowerCase();
  const { rows } = await sql<IdempotencyRow>`
    SELECT method, path, key, response_body FROM api_idempotency_keys
     WHERE team_id = ${subject.teamId}
       AND (strpos(lower(path), ${subject.address}) > 0 OR strpos(lower(path), ${encoded}) > 0
            OR strpos(lower(coalesce(response_body, '')), ${subject.address}) > 0)`.execute(database.db);
  const pattern = addressPattern(subject.address);
  let changed = 0;
  for (const row of rows) {
    const path = row.path.replace(pattern, subject.placeholder);
    const body = row.response_body?.replace(pattern, subject.placeholder) ?? null;
    if (path === row.path && body === row.response_body) continue;
    const scope = sql`team_id = ${subject.teamId} AND method = ${row.method} AND key = ${row.key}`;
    const moved = await sql`
      UPDATE api_idempotency_keys SET path = ${path}, response_body = ${body}
       WHERE ${scope} AND path = ${row.path}
         AND (${path}::text = ${row.path}::text OR NOT EXISTS (SELECT 1 FROM api_idempotency_keys WHERE ${scope} AND path = ${path}))`.execute(
      database.db,
    );
    if (Number(moved.numAffectedRows ?? 0) > 0) changed += 1;
    else
      changed += Number(
        (await sql`DELETE FROM api_idempotency_keys WHERE ${scope} AND path = ${row.path}`.execute(database.db)).numAffectedRows ?? 0,
      );
  }
  return changed;
}

/**
 * A rebuild's or a verify's record may quote rows that differed, the subject's among them: such a record
 * keeps its outcome and counts and loses its detail. Records are per operator run, few, and not per team.
 */
async function scrubOperations(database: Database, subject: SubjectMatch): Promise<number> {
  const result = await sql`
    UPDATE projection_operations SET detail = jsonb_build_object('erased', ${subject.placeholder}::text)
     WHERE ${mentions(subject, sql`detail::text`)} AND detail->>'erased' IS DISTINCT FROM ${subject.placeholder}`.execute(database.db);
  return Number(result.numAffectedRows ?? 0);
}

/** Tables beside the read models that can quote the subject. `api_request_logs` is the api's to redact (`redactRequestLogsNaming`). */
export async function scrubSubjectOperational(database: Database, subject: SubjectMatch): Promise<Counts> {
  return {
    api_idempotency_keys: (await exists(database, "api_idempotency_keys")) ? await scrubIdempotencyKeys(database, subject) : 0,
    projection_operations: (await exists(database, "projection_operations")) ? await scrubOperations(database, subject) : 0,
  };
}
