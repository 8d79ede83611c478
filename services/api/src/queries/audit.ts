import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { emailAddressIn, isUuid, readModels, type AuditRefKind } from "@tidings/projections";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";

/** One event that names a key, as the audit index has it (docs/architecture.md §4, the audit index). */
export interface AuditRef {
  event_id: string;
  kind: AuditRefKind;
  stream_id: string;
  revision: string;
  type: string;
  created_at: Date;
  occurred_at: Date | null;
  team_id: string | null;
}

/**
 * The form the index keeps a key in: ids and addresses lowercased, an address taken out of
 * `Name <address>`. Anything else is looked up as given.
 */
export function auditKey(text: string): string {
  const trimmed = text.trim();
  if (isUuid(trimmed)) return trimmed.toLowerCase();
  return emailAddressIn(trimmed) ?? trimmed;
}

/** The index's rows for a key, from both tables: contacts' addresses are kept apart (see the audit projection). */
function refsOf(database: Database, key: string) {
  const models = readModels(database);
  const columns = [
    "event_id",
    "stream_id",
    sql<string>`revision::text`.as("revision"),
    "type",
    "created_at",
    "occurred_at",
    "team_id",
  ] as const;
  const refs = models
    .selectFrom("audit_refs")
    .where("key", "=", key)
    .select([...columns, "kind"]);
  const addresses = models
    .selectFrom("audit_contact_addresses")
    .where("email", "=", key)
    .select([...columns, sql<AuditRefKind>`'email'`.as("kind")]);
  return models.selectFrom(refs.unionAll(addresses).as("r")).selectAll();
}

/** Every event that names `key`, oldest first: what `tidings audit find` prints. */
export function findAuditRefs(database: Database, key: string): Promise<AuditRef[]> {
  return refsOf(database, auditKey(key)).orderBy("created_at").orderBy("stream_id").orderBy("revision").execute();
}

/** A page of the events of one team that name `key`, newest first (`GET /audit/resources/:id`). */
export function pageAuditRefs(database: Database, teamId: string, key: string, page: PageRequest): Promise<ListPage<AuditRef>> {
  return listPage(refsOf(database, auditKey(key)).where("team_id", "=", teamId), page, {
    orderBy: ["created_at", "event_id"],
  });
}
