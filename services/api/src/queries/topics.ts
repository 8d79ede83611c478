import { sql } from "kysely";
import type { TopicSubscription } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

export interface TopicItem {
  id: string;
  name: string;
  description: string | null;
  default_subscription: TopicSubscription;
  visibility: "public" | "private";
  created_at: string;
}

const columns = [
  "t.id",
  "t.name",
  "t.description",
  "t.default_subscription",
  "t.visibility",
  wireTimestamp("t.created_at").as("created_at"),
] as const;
const teamTopics = (database: Database, teamId: string) => readModels(database).selectFrom("topics as t").where("t.team_id", "=", teamId);

/** `topics.list()` sends no query (docs/wire-compatibility.md §6.13); pagination still works for other clients. */
export function listTopics(database: Database, teamId: string, page: PageRequest): Promise<ListPage<TopicItem>> {
  return listPage(teamTopics(database, teamId).select([...columns]), page, { orderBy: ["t.created_at", "t.id"] });
}

export async function getTopic(database: Database, teamId: string, id: string): Promise<TopicItem | undefined> {
  return await teamTopics(database, teamId)
    .select([...columns])
    .where(sql`t.id::text`, "=", id)
    .executeTakeFirst();
}

export interface ContactTopicItem {
  id: string;
  name: string;
  description: string | null;
  subscription: TopicSubscription;
}

/** Every topic of the team with the contact's effective subscription: its own choice, else the default. */
export function listContactTopics(
  database: Database,
  teamId: string,
  contactId: string,
  page: PageRequest,
): Promise<ListPage<ContactTopicItem>> {
  const base = teamTopics(database, teamId)
    .leftJoin("contact_topics as c", (join) => join.onRef("c.topic_id", "=", "t.id").on("c.contact_id", "=", contactId))
    .select([
      "t.id",
      "t.name",
      "t.description",
      sql<TopicSubscription>`coalesce(c.subscription, t.default_subscription)`.as("subscription"),
    ]);
  return listPage(base, page, { orderBy: ["t.created_at", "t.id"] });
}

/** The topics a preference page offers: the team's public ones, and the one the link was sent for. */
export function preferenceTopics(
  database: Database,
  teamId: string,
  linkTopicId: string | null,
): Promise<Omit<TopicItem, "visibility" | "created_at">[]> {
  return teamTopics(database, teamId)
    .where((eb) => eb.or([eb("t.visibility", "=", "public"), ...(linkTopicId ? [eb(sql`t.id::text`, "=", linkTopicId)] : [])]))
    .select(["t.id", "t.name", "t.description", "t.default_subscription"])
    .orderBy("t.created_at")
    .orderBy("t.id")
    .execute();
}
