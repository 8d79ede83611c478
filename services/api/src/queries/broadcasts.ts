import { sql } from "kysely";
import type { WireBroadcastStatus } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { clickedByPerson, humanClicksByLink, humanOpens, openedByPerson } from "./broadcastEngagement.js";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

/** A list item of docs/wire-compatibility.md §6.11: `audience_id` is the legacy name of `segment_id`, always equal to it. */
export interface BroadcastListItem {
  id: string;
  name: string | null;
  audience_id: string | null;
  segment_id: string | null;
  status: WireBroadcastStatus;
  created_at: string;
  scheduled_at: string | null;
  sent_at: string | null;
  topic_id: string | null;
}

/** The ledger's counts: `queued` is every recipient handed to delivery, `sent` every one the receiving server accepted. */
export interface BroadcastCounts {
  recipients: number;
  queued: number;
  sent: number;
  delivered: number;
  delivery_delayed: number;
  bounced: number;
  failed: number;
  suppressed: number;
  /** Delivered, then reported as unwanted by a feedback loop: counted among `delivered` too. */
  complained: number;
  /** Handed to delivery, then not attempted because the broadcast was canceled. */
  canceled: number;
}

export interface WireBroadcast extends BroadcastListItem {
  object: "broadcast";
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  preview_text: string | null;
  html: string | null;
  text: string | null;
  counts: BroadcastCounts;
}

const listColumns = [
  "b.id",
  "b.name",
  "b.segment_id as audience_id",
  "b.segment_id",
  "b.status",
  wireTimestamp("b.created_at").as("created_at"),
  wireTimestamp("b.scheduled_at").as("scheduled_at"),
  wireTimestamp("b.sent_at").as("sent_at"),
  "b.topic_id",
] as const;

const teamBroadcasts = (database: Database, teamId: string) =>
  readModels(database).selectFrom("broadcasts as b").where("b.team_id", "=", teamId);

/** Newest first; an older list endpoint, so it returns every broadcast when `limit` is omitted (docs/wire-compatibility.md §2.1). */
export function listBroadcasts(database: Database, teamId: string, page: PageRequest): Promise<ListPage<BroadcastListItem>> {
  return listPage(teamBroadcasts(database, teamId).select([...listColumns]), page, {
    orderBy: ["b.created_at", "b.id"],
    whenLimitOmitted: "all",
  });
}

/** The recipient statuses counted under their own name; `queued` and `sent` are counted by the rules above. */
const countedStatuses = ["delivered", "delivery_delayed", "bounced", "failed", "suppressed", "complained", "canceled"] as const;
const isCountedStatus = (status: string): status is (typeof countedStatuses)[number] =>
  (countedStatuses as readonly string[]).includes(status);

export async function broadcastCounts(database: Database, broadcastId: string): Promise<BroadcastCounts> {
  const rows = await readModels(database)
    .selectFrom("broadcast_recipients")
    .where("broadcast_id", "=", broadcastId)
    .groupBy("status")
    .select(["status", sql<string>`count(*)`.as("n"), sql<string>`count(sent_at)`.as("sent")])
    .execute();
  const counts: BroadcastCounts = {
    recipients: 0,
    queued: 0,
    sent: 0,
    delivered: 0,
    delivery_delayed: 0,
    bounced: 0,
    failed: 0,
    suppressed: 0,
    complained: 0,
    canceled: 0,
  };
  for (const row of rows) {
    const n = Number(row.n);
    counts.recipients += n;
    counts.sent += Number(row.sent);
    if (row.status !== "planned") counts.queued += n;
    if (isCountedStatus(row.status)) counts[row.status] += n;
    if (row.status === "complained") counts.delivered += n;
  }
  return counts;
}

export async function getBroadcast(database: Database, teamId: string, broadcastId: string): Promise<WireBroadcast | undefined> {
  const row = await teamBroadcasts(database, teamId)
    .where("b.id", "=", broadcastId)
    .select([...listColumns, "b.from_address as from", "b.subject", "b.reply_to", "b.preview_text", "b.html", "b.text"])
    .executeTakeFirst();
  if (!row) return undefined;
  return { object: "broadcast", ...row, counts: await broadcastCounts(database, broadcastId) };
}

/** docs/wire-compatibility.md §6.11 recipient types; unsubscribes have no source yet, so list none. */
export const recipientTypes = ["sent", "delivered", "opened", "clicked", "bounced", "complained", "unsubscribed", "suppressed"] as const;
export type RecipientType = (typeof recipientTypes)[number];

export interface RecipientFilter extends PageRequest {
  type?: RecipientType | undefined;
  email?: string | undefined;
  bounce_type?: "permanent" | "transient" | "undetermined" | undefined;
}

export interface RecipientItem {
  id: string;
  contact_id: string | null;
  email: string;
  status: string;
  bounce_type?: string;
  /** People's opens (type=opened) or clicks (type=clicked). */
  count?: number;
  clicked_links?: { url: string; clicks: number }[];
}

export async function listRecipients(database: Database, broadcastId: string, filter: RecipientFilter): Promise<ListPage<RecipientItem>> {
  let query = readModels(database).selectFrom("broadcast_recipients as r").where("r.broadcast_id", "=", broadcastId);
  if (filter.type === "sent") query = query.where("r.sent_at", "is not", null);
  else if (filter.type === "opened") query = query.where(openedByPerson);
  else if (filter.type === "clicked") query = query.where(clickedByPerson);
  else if (filter.type === "delivered") query = query.where("r.status", "in", ["delivered", "complained"]);
  // Unsubscribes from a broadcast's link are not recorded per recipient yet: that list is empty.
  else if (filter.type === "unsubscribed") query = query.where(sql<boolean>`false`);
  else if (filter.type !== undefined) query = query.where("r.status", "=", filter.type);
  if (filter.bounce_type !== undefined) query = query.where("r.bounce_type", "=", filter.bounce_type);
  if (filter.email !== undefined) query = query.where(sql`lower(r.email)`, "=", filter.email.toLowerCase());
  const page = await listPage(query.select(["r.id", "r.contact_id", "r.email", "r.status", "r.bounce_type"]), filter, {
    orderBy: ["r.rank", "r.id"],
    toItem: (row: { id: string; contact_id: string; email: string; status: string; bounce_type: string | null }) => ({
      id: row.id,
      contact_id: row.contact_id,
      email: row.email,
      status: row.status,
      ...(row.bounce_type === null ? {} : { bounce_type: row.bounce_type }),
    }),
  });
  return withEngagement(database, page, filter.type);
}

async function withEngagement(
  database: Database,
  page: ListPage<RecipientItem>,
  type: RecipientType | undefined,
): Promise<ListPage<RecipientItem>> {
  const ids = page.data.map((item) => item.id);
  if (type === "opened") {
    const opens = await humanOpens(database, ids);
    return { ...page, data: page.data.map((item) => ({ ...item, count: opens.get(item.id) ?? 0 })) };
  }
  if (type === "clicked") {
    const clicks = await humanClicksByLink(database, ids);
    return {
      ...page,
      data: page.data.map((item) => {
        const links = clicks.get(item.id) ?? [];
        return { ...item, count: links.reduce((sum, link) => sum + link.clicks, 0), clicked_links: links };
      }),
    };
  }
  return page;
}
