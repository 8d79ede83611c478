import { sql } from "kysely";
import type { SigningSecret } from "@tidings/domain";
import { comparePositions, type Position } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { shareLookups } from "./sharedLookups.js";

export interface SubscribedWebhook {
  id: string;
  endpoint: string;
  secrets: SigningSecret[];
}

interface TeamWebhook extends SubscribedWebhook {
  events: string[];
  created: Position;
}

interface TeamLookup {
  /** When the lookup started (Date.now()): how old what it found may be. */
  at: number;
  webhooks: TeamWebhook[];
}

/** What a team's webhooks were when looked up, for one event. */
export interface TeamSubscriptions {
  /** When the read model was asked (Date.now()). */
  at: number;
  /**
   * Whether any webhook could take an event of one of these types: enabled, subscribed to one of them,
   * and created before the event in `$all`. No: the event is nobody's, and its payload need not be built.
   */
  listensToAny(types: readonly string[]): boolean;
  /** The webhooks the event is due to, as a payload of `type`. */
  due(type: string): SubscribedWebhook[];
}

export interface Subscriptions {
  /** The team's webhooks as they stand for an event at `position`. */
  forEvent(teamId: string, position: Position): Promise<TeamSubscriptions>;
}

/**
 * The webhooks of a team, from the read model (a lookup). Events of one team come in bursts (a broadcast,
 * an import), so the fan-outs of a team share their lookups (`shareLookups`): each is answered by a
 * lookup that started after it asked, as if it had asked alone, and a team costs at most one lookup in
 * flight whatever its event rate.
 */
export function createSubscriptions(database: Database): Subscriptions {
  const lookUp = async (teamId: string): Promise<TeamLookup> => {
    const at = Date.now();
    const { rows } = await sql<{
      id: string;
      endpoint: string;
      events: string[];
      secret: string;
      previous_secret: string | null;
      previous_valid_until: string | null;
      created_commit: string;
      created_prepare: string;
    }>`
      SELECT id, endpoint, events, secret, previous_secret, created_commit::text AS created_commit, created_prepare::text AS created_prepare,
        to_char(previous_valid_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS previous_valid_until
      FROM webhooks WHERE team_id = ${teamId} AND status = 'enabled'`.execute(database.db);
    const webhooks = rows.map((row) => ({
      id: row.id,
      endpoint: row.endpoint,
      events: typeof row.events === "string" ? (JSON.parse(row.events) as string[]) : row.events,
      created: { commit: BigInt(row.created_commit), prepare: BigInt(row.created_prepare) },
      secrets: [
        { sealed: row.secret, validUntil: null },
        ...(row.previous_secret ? [{ sealed: row.previous_secret, validUntil: row.previous_valid_until }] : []),
      ],
    }));
    return { at, webhooks };
  };

  const fresh = shareLookups(lookUp);

  return {
    async forEvent(teamId, position) {
      const { at, webhooks } = await fresh(teamId);
      const before = webhooks.filter((w) => comparePositions(w.created, position) < 0);
      return {
        at,
        listensToAny: (types) => before.some((w) => types.some((type) => w.events.includes(type))),
        due: (type) => before.filter((w) => w.events.includes(type)).map(({ id, endpoint, secrets }) => ({ id, endpoint, secrets })),
      };
    },
  };
}
