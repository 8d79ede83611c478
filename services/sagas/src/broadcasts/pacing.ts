import { sql } from "kysely";
import { isUndefinedTable, type Database } from "@tidings/postgres";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A team's broadcast emails per second, shared by every broadcast of the team that runs in this process:
 * a token bucket refilled at the team's rate, holding at most one second's worth.
 */
export class TeamRates {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** Waits until `n` emails of the team may go, at `perSecond`. */
  async take(teamId: string, n: number, perSecond: number): Promise<void> {
    const bucket = this.buckets.get(teamId) ?? { tokens: perSecond, at: Date.now() };
    this.buckets.set(teamId, bucket);
    for (;;) {
      const now = Date.now();
      bucket.tokens = Math.min(perSecond, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
      bucket.at = now;
      // A batch larger than a second's worth goes once the bucket is full, then leaves it in debt.
      if (bucket.tokens >= Math.min(n, perSecond)) {
        bucket.tokens -= n;
        return;
      }
      await sleep(Math.max(5, ((Math.min(n, perSecond) - bucket.tokens) / perSecond) * 1000));
    }
  }
}

/**
 * How many of a broadcast's emails may be handed to delivery without an outcome: about `targetMs` of what
 * delivery has been settling lately, so an email queued behind them (a transactional one) waits about
 * that long whatever delivery's speed, within [`min`, `max`]. It grows as delivery keeps up and shrinks as
 * it slows: at the start, with nothing measured yet, it is `min`.
 */
export class InFlightWindow {
  private readonly samples: { at: number; settled: number }[] = [];

  constructor(
    private readonly max: number,
    private readonly min = Math.min(50, max),
    private readonly targetMs = 1_000,
    private readonly measureMs = 5_000,
  ) {}

  limit(settled: number, now = Date.now()): number {
    this.samples.push({ at: now, settled });
    while (this.samples.length > 2 && now - this.samples[0]!.at > this.measureMs) this.samples.shift();
    const first = this.samples[0]!;
    const perMs = now > first.at ? (settled - first.settled) / (now - first.at) : 0;
    return Math.max(this.min, Math.min(this.max, Math.round(perMs * this.targetMs)));
  }
}

/**
 * How many of a broadcast's emails have an outcome in the ledger (any status past `queued`), as the
 * broadcasts projection counts them (`broadcast_settled`, one row). The ledger lags the event store, so this
 * undercounts: the in-flight window it guards errs on the safe side. While a version of the projection
 * without that table still serves (its successor being built after an upgrade), the ledger's rows are
 * counted instead.
 */
export async function settledEmails(database: Database, broadcastId: string): Promise<number> {
  try {
    const { rows } = await sql<{ settled: string }>`
      SELECT settled FROM broadcast_settled WHERE broadcast_id = ${broadcastId}`.execute(database.db);
    return Number(rows[0]?.settled ?? 0);
  } catch (error) {
    if (!isUndefinedTable(error)) throw error;
  }
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM broadcast_recipients WHERE broadcast_id = ${broadcastId} AND status NOT IN ('planned', 'queued')`.execute(
    database.db,
  );
  return Number(rows[0]?.n ?? 0);
}

/** A team's own broadcast rate, when an operator set one (`tidings teams set-broadcast-rate`). */
export async function teamBroadcastRate(database: Database, teamId: string): Promise<number | null> {
  const { rows } = await sql<{ rate: number | null }>`SELECT broadcast_emails_per_second AS rate FROM teams WHERE id = ${teamId}`.execute(
    database.db,
  );
  return rows[0]?.rate ?? null;
}
