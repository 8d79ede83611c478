import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { readModels } from "@tidings/projections";

/**
 * A broadcast's engagement, from the tracking read models joined with its recipients' ledger (whose ids are
 * the recipients' email ids). Opens and clicks flagged `machine` (privacy proxies, link scanners, clicks
 * within 2 s of delivery) are left out of every figure here, so the stats count people.
 */

export interface ClickedLink {
  id: string;
  url: string;
  clicks: number;
  unique_clicks: number;
}

const humanClicks = sql<number>`c.clicks - c.machine_clicks`;

/** A stable id for a link, shaped as a name-based uuid (version and variant digits set) so that `after` and `before` accept it. */
const linkId = sql<string>`(substr(md5(c.link), 1, 12) || '5' || substr(md5(c.link), 14, 3) || '8' || substr(md5(c.link), 18, 15))::uuid`;

/** The broadcast's links by people's clicks, most clicked first; `id` (from the url's md5) is the cursor. */
export function listClickedLinks(database: Database, broadcastId: string, page: PageRequest): Promise<ListPage<ClickedLink>> {
  const links = readModels(database)
    .selectFrom("email_link_clicks as c")
    .innerJoin("broadcast_recipients as r", "r.id", "c.email_id")
    .where("r.broadcast_id", "=", broadcastId)
    .where(sql<boolean>`${humanClicks} > 0`)
    .groupBy("c.link")
    .select([
      linkId.as("id"),
      "c.link as url",
      sql<string>`sum(${humanClicks})`.as("clicks"),
      sql<string>`count(DISTINCT c.email_id)`.as("unique_clicks"),
    ]);
  type Row = { id: string; url: string; clicks: string; unique_clicks: string };
  return listPage(readModels(database).selectFrom(links.as("l")).select(["l.id", "l.url", "l.clicks", "l.unique_clicks"]), page, {
    orderBy: ["l.clicks", "l.id"],
    toItem: (row: Row) => ({
      id: row.id,
      url: row.url,
      clicks: Number(row.clicks),
      unique_clicks: Number(row.unique_clicks),
    }),
  });
}

/** How often each of these recipients' emails was opened by a person. */
export async function humanOpens(database: Database, emailIds: string[]): Promise<Map<string, number>> {
  if (emailIds.length === 0) return new Map();
  const rows = await readModels(database)
    .selectFrom("email_opens")
    .where("email_id", "in", emailIds)
    .select(["email_id", sql<string>`opens - machine_opens`.as("opens")])
    .execute();
  return new Map(rows.map((row: { email_id: string; opens: string }) => [row.email_id, Number(row.opens)]));
}

/** Each of these recipients' clicked links with a person's click count. */
export async function humanClicksByLink(database: Database, emailIds: string[]): Promise<Map<string, { url: string; clicks: number }[]>> {
  const byEmail = new Map<string, { url: string; clicks: number }[]>();
  if (emailIds.length === 0) return byEmail;
  const rows = await readModels(database)
    .selectFrom("email_link_clicks as c")
    .where("c.email_id", "in", emailIds)
    .where(sql<boolean>`${humanClicks} > 0`)
    .groupBy(["c.email_id", "c.link"])
    .select(["c.email_id", "c.link", sql<string>`sum(${humanClicks})`.as("clicks")])
    .orderBy("c.email_id")
    .orderBy("c.link")
    .execute();
  for (const row of rows) {
    const links = byEmail.get(row.email_id) ?? [];
    links.push({ url: row.link, clicks: Number(row.clicks) });
    byEmail.set(row.email_id, links);
  }
  return byEmail;
}

/** Filters a recipients query to those a person opened, or clicked, at least once. */
export const openedByPerson = sql<boolean>`EXISTS (SELECT 1 FROM email_opens o WHERE o.email_id = r.id AND o.opens > o.machine_opens)`;
export const clickedByPerson = sql<boolean>`EXISTS (SELECT 1 FROM email_link_clicks c WHERE c.email_id = r.id AND c.clicks > c.machine_clicks)`;
