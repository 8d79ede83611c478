import { sql } from "kysely";
import { likeLiteral, type Database } from "@tidings/postgres";
import type { RequestLogWriter } from "./requestLogsWriter.js";

/**
 * Erasure reaching the stored request log: every request of the team whose path or bodies name the erased
 * subject (by address, and by id for a contact, any case, the address also as a URL writes it) keeps its row (method, status,
 * time: what happened) and loses its bodies, and a path segment holding an address reads `[address]`. The
 * writer's buffer is written first, so requests answered before the erasure are reached too. Resolves with
 * how many rows were redacted.
 *
 * Another api process's buffer is not reached: a request it answered within its flush interval before the
 * erasure may be written after this ran.
 */
export async function redactRequestLogsNaming(
  database: Database,
  writer: Pick<RequestLogWriter, "flush">,
  teamId: string,
  subject: { contactId?: string; email: string },
): Promise<number> {
  await writer.flush();
  const email = subject.email.toLowerCase();
  const names = [...(subject.contactId ? [subject.contactId.toLowerCase()] : []), email, encodeURIComponent(email)];
  const patterns = [...new Set(names)].map((name) => `%${likeLiteral(name)}%`);
  const result = await sql`
    UPDATE api_request_logs
       SET request_body = NULL, response_body = NULL,
           endpoint = regexp_replace(endpoint, '[^/]*(@|%40)[^/]*', '[address]', 'gi')
     WHERE team_id = ${teamId}
       AND (lower(endpoint) LIKE ANY(${patterns}::text[])
            OR lower(request_body::text) LIKE ANY(${patterns}::text[])
            OR lower(response_body::text) LIKE ANY(${patterns}::text[]))`.execute(database.db);
  return Number(result.numAffectedRows ?? 0);
}
