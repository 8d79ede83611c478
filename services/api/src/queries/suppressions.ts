import { sql } from "kysely";
import type { SuppressionOrigin } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import type { SubjectHasher } from "@tidings/privacy";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

export interface SuppressionItem {
  id: string;
  email: string;
  origin: SuppressionOrigin;
  source_id: string | null;
  created_at: string;
}

const columns = ["s.id", "s.email", "s.origin", "s.source_id", wireTimestamp("s.created_at").as("created_at")] as const;
const teamSuppressions = (database: Database, teamId: string) =>
  readModels(database)
    .selectFrom("suppressions as s")
    .where("s.team_id", "=", teamId)
    .select([...columns]);

/** Newest first, optionally of one origin; a newer list endpoint, so it pages by 20 when `limit` is omitted. */
export function listSuppressions(
  database: Database,
  teamId: string,
  page: PageRequest & { origin?: SuppressionOrigin | undefined },
): Promise<ListPage<SuppressionItem>> {
  let base = teamSuppressions(database, teamId);
  if (page.origin) base = base.where("s.origin", "=", page.origin);
  return listPage(base, page, { orderBy: ["s.created_at", "s.id"] });
}

/**
 * By id, or by address (compared lower-cased, as the send path does). An address erased while suppressed
 * is listed under a placeholder and found by its keyed hash, as the send path finds it; where the address
 * is also listed as itself, that row comes first.
 */
export function getSuppression(
  database: Database,
  teamId: string,
  idOrEmail: string,
  hashSubject: SubjectHasher,
): Promise<SuppressionItem | undefined> {
  const email = idOrEmail.trim().toLowerCase();
  return teamSuppressions(database, teamId)
    .where((eb) =>
      eb.or([eb(sql`s.id::text`, "=", idOrEmail), eb("s.email", "=", email), eb("s.email_hash", "=", hashSubject(teamId, email))]),
    )
    .orderBy(sql`s.email = ${email}`, "desc")
    .executeTakeFirst();
}
