import { sql } from "kysely";
import { isUndefinedTable, type Database } from "@tidings/postgres";

/** A team that receives mail for a domain. */
export interface ReceivingTeam {
  teamId: string;
  domainId: string;
}

/**
 * The teams that receive mail for `domain`: receiving enabled, and its MX verified, which is what shows
 * the domain's owner pointed it at us (a read-model lookup, like an alias: docs/architecture.md §1). Several teams can
 * hold a domain of the same name before a claim settles it; each verified one receives.
 */
export function receivingTeams(database: Database): (domain: string) => Promise<ReceivingTeam[]> {
  return async (domain) => {
    try {
      const { rows } = await sql<{ team_id: string; id: string }>`
        SELECT team_id, id FROM domains
         WHERE name = ${domain.toLowerCase()}
           AND capabilities->>'receiving' = 'enabled'
           AND records @> '[{"key": "receiving-mx", "status": "verified"}]'::jsonb`.execute(database.db);
      return rows.map((r) => ({ teamId: r.team_id, domainId: r.id }));
    } catch (error) {
      // An api can take connections before the projector created the read model: no domain receives yet.
      if (isUndefinedTable(error)) return [];
      throw error;
    }
  };
}

/** Whether `domain` is some domain's return path (`<custom_return_path>.<name>`), whose MX points at us. */
export function returnPaths(database: Database): (domain: string) => Promise<boolean> {
  return async (domain) => {
    try {
      const { rows } = await sql<{ found: number }>`
        SELECT 1 AS found FROM domains WHERE custom_return_path || '.' || name = ${domain.toLowerCase()} LIMIT 1`.execute(database.db);
      return rows.length > 0;
    } catch (error) {
      if (isUndefinedTable(error)) return false;
      throw error;
    }
  };
}
