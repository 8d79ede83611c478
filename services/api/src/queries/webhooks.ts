import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

export interface WebhookListItem {
  id: string;
  endpoint: string;
  created_at: string;
  status: "enabled" | "disabled";
  events: string[];
}

export interface WebhookDeliveryListItem {
  id: string;
  type: string;
  created_at: string;
  status: "pending" | "attempting" | "success" | "failed";
}

export interface WebhookAttemptItem {
  id: string;
  http_status_code: number | null;
  response: string;
  duration_ms: number;
  sent_at: string;
}

const teamWebhooks = (database: Database, teamId: string) =>
  readModels(database).selectFrom("webhooks as w").where("w.team_id", "=", teamId);

const webhookColumns = ["w.id", "w.endpoint", wireTimestamp("w.created_at").as("created_at"), "w.status", "w.events"] as const;

/** Newest first; a newer list endpoint, so it pages by 20 when `limit` is omitted (docs/wire-compatibility.md §2.1). */
export function listWebhooks(database: Database, teamId: string, page: PageRequest): Promise<ListPage<WebhookListItem>> {
  return listPage(teamWebhooks(database, teamId).select([...webhookColumns]), page, { orderBy: ["w.created_at", "w.id"] });
}

/** A webhook with its signing secret still sealed. */
export function getWebhook(
  database: Database,
  teamId: string,
  webhookId: string,
): Promise<(WebhookListItem & { secret: string }) | undefined> {
  return teamWebhooks(database, teamId)
    .where("w.id", "=", webhookId)
    .select([...webhookColumns, "w.secret"])
    .executeTakeFirst();
}

/** The deliveries of one of the team's webhooks; an empty list for a webhook it does not have. */
const deliveriesOf = (database: Database, teamId: string, webhookId: string) =>
  readModels(database).selectFrom("webhook_deliveries as d").where("d.team_id", "=", teamId).where("d.webhook_id", "=", webhookId);

const deliveryColumns = ["d.id", sql<string>`d.event_type`.as("type"), wireTimestamp("d.created_at").as("created_at"), "d.status"] as const;

export function listWebhookDeliveries(
  database: Database,
  teamId: string,
  webhookId: string,
  page: PageRequest,
): Promise<ListPage<WebhookDeliveryListItem>> {
  return listPage(deliveriesOf(database, teamId, webhookId).select([...deliveryColumns]), page, { orderBy: ["d.created_at", "d.id"] });
}

export function getWebhookDelivery(database: Database, teamId: string, webhookId: string, deliveryId: string) {
  return deliveriesOf(database, teamId, webhookId)
    .where("d.id", "=", deliveryId)
    .select([...deliveryColumns, wireTimestamp("d.next_attempt_at").as("next_attempt_at"), "d.payload"])
    .executeTakeFirst();
}

export async function listWebhookAttempts(
  database: Database,
  teamId: string,
  webhookId: string,
  deliveryId: string,
  page: PageRequest,
): Promise<ListPage<WebhookAttemptItem> | undefined> {
  const delivery = await deliveriesOf(database, teamId, webhookId).where("d.id", "=", deliveryId).select("d.id").executeTakeFirst();
  if (!delivery) return undefined;
  const attempts = readModels(database)
    .selectFrom("webhook_attempts as a")
    .where("a.delivery_id", "=", deliveryId)
    .select(["a.id", "a.http_status_code", "a.response", "a.duration_ms", wireTimestamp("a.sent_at").as("sent_at")]);
  return listPage(attempts, page, { orderBy: ["a.sent_at", "a.id"] });
}
