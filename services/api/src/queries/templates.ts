import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import type { TemplateVariable } from "@tidings/domain";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

export interface TemplateListItem {
  id: string;
  name: string;
  status: "draft" | "published";
  published_at: string | null;
  created_at: string;
  updated_at: string;
  alias: string | null;
}

export interface WireTemplateVariable {
  key: string;
  type: TemplateVariable["type"];
  fallback_value: string | number | null;
  created_at: string;
  updated_at: string;
}

/** The Template object of docs/wire-compatibility.md §6.12. */
export interface WireTemplate extends TemplateListItem {
  object: "template";
  subject: string | null;
  html: string;
  text: string | null;
  from: string | null;
  reply_to: string[] | null;
  variables: WireTemplateVariable[];
  has_unpublished_versions: boolean;
  current_version_id: string;
}

const status = sql<"draft" | "published">`CASE WHEN t.published_version_id IS NULL THEN 'draft' ELSE 'published' END`;
const listColumns = [
  "t.id",
  "t.name",
  status.as("status"),
  wireTimestamp("t.published_at").as("published_at"),
  wireTimestamp("t.created_at").as("created_at"),
  wireTimestamp("t.updated_at").as("updated_at"),
  "t.alias",
] as const;

const teamTemplates = (database: Database, teamId: string) =>
  readModels(database).selectFrom("templates as t").where("t.team_id", "=", teamId);

/** Newest first; a newer list endpoint, so it pages by 20 when `limit` is omitted (docs/wire-compatibility.md §2.1). */
export function listTemplates(database: Database, teamId: string, page: PageRequest): Promise<ListPage<TemplateListItem>> {
  return listPage(teamTemplates(database, teamId).select([...listColumns]), page, { orderBy: ["t.created_at", "t.id"] });
}

/**
 * A template by id or alias. An id wins over an alias that happens to look like one. Variables have no
 * timestamps of their own in Tidings: they change with the template, so they carry the template's.
 */
export async function getTemplate(database: Database, teamId: string, idOrAlias: string): Promise<WireTemplate | undefined> {
  const row = await teamTemplates(database, teamId)
    .where((eb) => eb.or([eb(sql`t.id::text`, "=", idOrAlias), eb("t.alias", "=", idOrAlias)]))
    .select([
      ...listColumns,
      "t.subject",
      "t.html",
      "t.text",
      "t.from_address",
      "t.reply_to",
      "t.variables",
      sql<boolean>`coalesce(t.published_version_id <> t.current_version_id, false)`.as("has_unpublished_versions"),
      sql<string>`t.current_version_id::text`.as("current_version_id"),
    ])
    .orderBy(sql`t.id::text = ${idOrAlias}`, "desc")
    .orderBy("t.created_at", "desc")
    .executeTakeFirst();
  if (!row) return undefined;
  const { from_address, variables, ...rest } = row;
  return {
    object: "template",
    ...rest,
    from: from_address,
    variables: variables.map((v) => ({
      key: v.key,
      type: v.type,
      fallback_value: v.fallbackValue,
      created_at: row.created_at,
      updated_at: row.updated_at,
    })),
  };
}
