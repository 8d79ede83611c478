import { sql } from "kysely";
import { bareAddresses, type SuppressedAddress, type SuppressionOrigin } from "@tidings/domain";
import type { Database } from "@tidings/postgres";

/** The recipients of an email that are on its team's suppression list (the `suppressions` read model), with their origin. */
export type SuppressedRecipients = (teamId: string, recipients: string[]) => Promise<SuppressedAddress[]>;

/**
 * The send path already checked the list when the email was accepted; delivery checks again because a
 * scheduled or deferred email can go out hours later, after a hard bounce put one of its recipients on it.
 */
export function suppressionList(database: Database): SuppressedRecipients {
  return async (teamId, recipients) => {
    try {
      const { rows } = await sql<{ email: string; origin: SuppressionOrigin }>`
        SELECT email, origin FROM suppressions WHERE team_id = ${teamId} AND email = ANY(${bareAddresses(recipients)}::text[])`.execute(database.db);
      return rows.map((r) => ({ email: r.email, origin: r.origin }));
    } catch (error) {
      // A sagas process can start before the projector has created the read model: nothing is suppressed yet.
      if ((error as { code?: string }).code === "42P01") return [];
      throw error;
    }
  };
}
