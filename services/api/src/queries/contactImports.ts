import { sql } from "kysely";
import type { ContactImportStatus, ImportCounts, ImportRowError } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

/** `ContactImport` (docs/wire-compatibility.md §6.10). */
export interface ContactImportItem {
  object: "contact_import";
  id: string;
  status: ContactImportStatus;
  created_at: string;
  completed_at: string | null;
  counts: ImportCounts;
}

const columns = [
  sql<"contact_import">`'contact_import'`.as("object"),
  "i.id",
  "i.status",
  wireTimestamp("i.created_at").as("created_at"),
  wireTimestamp("i.completed_at").as("completed_at"),
  "i.counts",
] as const;
const teamImports = (database: Database, teamId: string) =>
  readModels(database)
    .selectFrom("contact_imports as i")
    .where("i.team_id", "=", teamId)
    .select([...columns]);

/** docs/wire-compatibility.md §10.6, GET /contacts/imports: 10 a page unless `limit` says otherwise, optionally of one status. */
export function listContactImports(
  database: Database,
  teamId: string,
  page: PageRequest & { status?: ContactImportStatus | undefined },
): Promise<ListPage<ContactImportItem>> {
  let base = teamImports(database, teamId);
  if (page.status) base = base.where("i.status", "=", page.status);
  return listPage(base, page, { whenLimitOmitted: 10, orderBy: ["i.created_at", "i.id"] });
}

/** An import with the first row errors it kept, in line order. */
export async function getContactImport(
  database: Database,
  teamId: string,
  id: string,
): Promise<(ContactImportItem & { errors: ImportRowError[] }) | undefined> {
  const item = await teamImports(database, teamId)
    .where(sql`i.id::text`, "=", id)
    .executeTakeFirst();
  if (!item) return undefined;
  const errors = await readModels(database)
    .selectFrom("contact_import_errors")
    .select(["line", "reason"])
    .where("import_id", "=", item.id)
    .orderBy("line")
    .execute();
  return { ...item, errors };
}
