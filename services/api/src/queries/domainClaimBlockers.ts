import { sql } from "kysely";
import type { ClaimBlockedReason } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { readModels } from "@tidings/projections";

/** How recently the holder must not have sent from the domain for a claim to go through (docs/wire-compatibility.md §6.5). */
export const RECENT_ACTIVITY_MS = 24 * 3600_000;

/**
 * Why the holder's use of the domain holds a claim back, if it does: mail it has scheduled from the
 * domain, or mail it sent from it in the last 24 h. Read from the emails read model, the one place that
 * lists a team's emails by sender: only as complete as the sends it has applied, so the caller first
 * waits for it to catch up.
 */
export async function claimBlocker(
  database: Database,
  holderTeamId: string,
  name: string,
  now: Date,
): Promise<ClaimBlockedReason | undefined> {
  // The address ends the `from`, bare or inside `<…>`.
  const fromThisDomain = sql<boolean>`(lower(from_address) LIKE ${`%@${name}`} OR lower(from_address) LIKE ${`%@${name}>`})`;
  const teamMail = () =>
    readModels(database)
      .selectFrom("emails")
      .where("team_id", "=", holderTeamId)
      .where(fromThisDomain)
      .select(sql.lit(1).as("found"))
      .limit(1);
  if (await teamMail().where("last_event", "=", "scheduled").executeTakeFirst()) return "pending_scheduled_emails";
  const since = new Date(now.getTime() - RECENT_ACTIVITY_MS).toISOString();
  const recent = await teamMail()
    .where("last_event", "not in", ["scheduled", "canceled"])
    .where(sql<boolean>`created_at > ${since}::timestamptz`)
    .executeTakeFirst();
  return recent ? "recent_owner_activity" : undefined;
}
