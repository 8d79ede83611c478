import { sql } from "kysely";
import { sharedRead, type Metrics } from "@tidings/core";
import { pauseScopes, type OutcomeCounts, type SendingPause } from "@tidings/domain";
import { isUndefinedTable, type Database } from "@tidings/postgres";
import { readModels } from "./readModels.js";

/** Every team and domain paused now, as their `SendingPaused` said, oldest first. */
export async function activeSendingPauses(database: Database): Promise<SendingPause[]> {
  try {
    const rows = await readModels(database)
      .selectFrom("sending_pauses")
      .selectAll()
      .where("paused", "=", true)
      .orderBy("paused_at")
      .orderBy("scope_id")
      .execute();
    return rows.map((r) => ({
      scope: r.scope,
      scopeId: r.scope_id,
      teamId: r.team_id,
      domainName: r.domain_name,
      metric: r.metric,
      rate: Number(r.rate),
      threshold: Number(r.threshold),
      sends: r.sends,
      windowHours: r.window_hours,
      pausedAt: new Date(r.paused_at).toISOString(),
    }));
  } catch (error) {
    // A process can start before the projector has created the read model: nothing is paused yet.
    if (isUndefinedTable(error)) return [];
    throw error;
  }
}

/** The pause a send from this team, and this domain of it, meets: the team's, or the domain's. */
export type SendingPauseOf = (teamId: string, domainId: string | null) => Promise<SendingPause | undefined>;

const pausesRead = new WeakMap<Database, () => Promise<SendingPause[]>>();

/**
 * The pauses in force, read at most once a second for every send of the process, whichever route or saga
 * sends: the table holds a row per paused team or domain, a few at most, and a send must not pay a round
 * trip for what is nearly always none. A pause or a lift therefore takes effect up to a second after its
 * read model shows it.
 */
export function sendingPauseOf(database: Database): SendingPauseOf {
  const read = pausesRead.get(database) ?? sharedRead(() => activeSendingPauses(database), 1_000);
  pausesRead.set(database, read);
  return async (teamId, domainId) => (await read()).find((p) => p.teamId === teamId && (p.scope === "team" || p.scopeId === domainId));
}

/** Whether a scope is paused, and when its last pause was lifted: where the reputation watcher counts from. */
export async function scopePause(database: Database, scopeId: string): Promise<{ paused: boolean; liftedAt: Date | null }> {
  const row = await readModels(database)
    .selectFrom("sending_pauses")
    .select(["paused", "lifted_at"])
    .where("scope_id", "=", scopeId)
    .executeTakeFirst();
  return { paused: row?.paused ?? false, liftedAt: row?.lifted_at ? new Date(row.lifted_at) : null };
}

/**
 * A team's emails with an outcome since `since`, from the email metrics' quarter hours that start at or after
 * it, of one of its domains or all of them. A quarter hour under way when a pause was lifted is left out
 * whole: what bounced before the lift must not pause the scope again.
 */
export async function outcomeCounts(
  database: Database,
  of: { teamId: string; domainId: string | null; since: Date },
): Promise<OutcomeCounts> {
  let query = readModels(database)
    .selectFrom("email_metrics")
    .select([
      sql<string>`COALESCE(SUM(delivered), 0)::text`.as("delivered"),
      sql<string>`COALESCE(SUM(bounced_permanent), 0)::text`.as("bounced"),
      sql<string>`COALESCE(SUM(complained), 0)::text`.as("complained"),
    ])
    .where("team_id", "=", of.teamId)
    .where("bucket_start", ">=", of.since);
  if (of.domainId !== null) query = query.where("domain_id", "=", of.domainId);
  const row = await query.executeTakeFirstOrThrow();
  return { delivered: Number(row.delivered), bounced: Number(row.bounced), complained: Number(row.complained) };
}

/**
 * `tidings_sending_paused{scope}`: the teams and domains whose new sends are refused now, read on each scrape
 * (docs/operations.md, "Metrics"). Counts, never ids: `tidings reputation list` names them.
 */
export function registerSendingPauseMetrics(options: { database: Database; metrics: Metrics }): void {
  const { database, metrics } = options;
  if (!metrics.enabled) return;
  const read = sharedRead(() => activeSendingPauses(database), 5_000);
  metrics.collected({
    name: "tidings_sending_paused",
    help: "Teams and sending domains whose new sends are paused for their bounce or complaint rate, by scope (team, domain)",
    labels: ["scope"],
    collect: async (gauge) => {
      const pauses = await read();
      for (const scope of pauseScopes) gauge.set({ scope }, pauses.filter((p) => p.scope === scope).length);
    },
  });
}
