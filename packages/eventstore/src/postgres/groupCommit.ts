import { sql, type Kysely } from "kysely";
import { contentHash } from "../integrity/hashes.js";
import { appendAlone } from "./soloAppend.js";
import { WrongExpectedRevisionError, type AppendResult, type ExpectedRevision, type StreamAppend } from "../port.js";

interface PendingStream {
  streamId: string;
  expected: ExpectedRevision;
  /** The events as JSON text, built once. */
  events: string;
  count: number;
}

/** One caller's append or appendMany: written all together or not at all, with one outcome. */
interface PendingUnit {
  streams: PendingStream[];
  count: number;
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

interface SetRow {
  ord: string;
  outcome: number;
  next_revision: string | null;
  commit_position: string;
  prepare_position: string;
  actual_revision: string;
}

const WRITTEN = 0;
const ALREADY_WRITTEN = 1;
const CONFLICT = 2;
const EMPTY = 4;

export interface GroupCommitOptions {
  /** Round trips in flight at once; appends arriving meanwhile wait and go together in the next one. */
  inFlight: number;
  /** At most this many events in one round trip. */
  maxEvents: number;
}

/** Appends waiting for a round trip, and the round trips in flight, of one kind of append. */
interface Lane {
  readonly queue: PendingUnit[];
  busy: number;
  readonly inFlight: number;
}

/**
 * Group commit for the appends of this process. An append that finds a round trip free goes at once,
 * alone; appends that arrive while every round trip is busy wait and then go together through
 * `eventstore.append_set`: one transaction, one WAL flush and one NOTIFY, each with its own result or
 * WrongExpectedRevisionError. An appendMany is one unit in it, written whole or not at all. A set holds
 * each stream once: a unit naming a stream already in the set waits for the next one, and so does every
 * later unit naming one of its streams, so appends to a stream keep their order.
 *
 * If a set fails as a whole (a duplicate event id, a lost connection), each of its units is retried alone,
 * so an error reaches only the unit that caused it; a set that did commit is then seen by the retries as
 * idempotent re-appends, which return the first results.
 *
 * A set of one append to one stream is first tried as one plain statement (`appendAlone`), which is what
 * most appends are when the store is not busy.
 *
 * `immediate` appends have a lane of their own, with two round trips: one goes at once unless both are on
 * the wire, and those arriving meanwhile go together in the next. So they never wait behind the other
 * appends' sets (thousands of events a fan-out or an import hands in), and a burst of them (a delivery's
 * outcomes, one per sending slot) costs a few transactions, not one each (docs/scaling.md §3). Two, not
 * one: an outcome then waits only while two sets are on the wire, and one set held up (a stream locked
 * by another transaction) does not hold up every outcome behind it; a broadcast ran as fast with two.
 */
export class GroupCommit {
  private readonly grouped: Lane;
  private readonly immediate: Lane = { queue: [], busy: 0, inFlight: 2 };
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly db: Kysely<unknown>,
    private readonly options: GroupCommitOptions,
  ) {
    this.grouped = { queue: [], busy: 0, inFlight: options.inFlight };
  }

  append(appends: StreamAppend[], immediate = false): Promise<AppendResult[]> {
    const streams = appends.map(({ streamId, expectedRevision, events }) => ({
      streamId,
      expected: expectedRevision,
      // Each event's content hash goes with it: the database chains it to the stream's head (integrity/hashes.ts).
      events: JSON.stringify(
        events.map((e) => ({ id: e.id, type: e.type, data: e.data ?? null, metadata: e.metadata ?? {}, content: contentHash(e) })),
      ),
      count: events.length,
    }));
    if (new Set(streams.map((s) => s.streamId)).size !== streams.length) {
      return Promise.reject(new Error("appendMany names a stream more than once"));
    }
    return new Promise((resolve, reject) => {
      const lane = immediate ? this.immediate : this.grouped;
      lane.queue.push({ streams, count: streams.reduce((n, s) => n + s.count, 0), resolve, reject });
      this.pump(lane);
    });
  }

  /** Resolves once every append handed in so far has its outcome. */
  idle(): Promise<void> {
    if (this.settled()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settled(): boolean {
    return [this.grouped, this.immediate].every((lane) => lane.busy === 0 && lane.queue.length === 0);
  }

  private pump(lane: Lane): void {
    while (lane.busy < lane.inFlight && lane.queue.length > 0) this.run(lane, this.take(lane.queue));
  }

  private run(lane: Lane, units: PendingUnit[]): void {
    lane.busy++;
    // `together` settles every unit it can; anything it throws past that settles the rest, so no caller
    // (a delivery holding its sending slot until its outcome is recorded) waits forever.
    void this.together(units)
      .catch((error: unknown) => {
        for (const unit of units) unit.reject(error);
      })
      .finally(() => {
        lane.busy--;
        this.pump(lane);
        if (this.settled()) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
  }

  private take(queue: PendingUnit[]): PendingUnit[] {
    const taken: PendingUnit[] = [];
    const left: PendingUnit[] = [];
    const named = new Set<string>();
    let events = 0;
    for (const unit of queue) {
      const fits = taken.length === 0 || events + unit.count <= this.options.maxEvents;
      if (fits && unit.streams.every((s) => !named.has(s.streamId))) {
        taken.push(unit);
        events += unit.count;
      } else left.push(unit);
      // A unit left behind holds its streams for the next set too: no later append may overtake it.
      for (const s of unit.streams) named.add(s.streamId);
      if (!fits) break;
    }
    queue.splice(0, taken.length + left.length, ...left);
    return taken;
  }

  private async together(units: PendingUnit[]): Promise<void> {
    const alone = units.length === 1 && units[0]!.streams.length === 1 ? units[0]! : undefined;
    if (alone) {
      const [stream] = alone.streams;
      try {
        const written = await appendAlone(this.db, stream!.streamId, stream!.expected, stream!.events, stream!.count);
        if (written) return alone.resolve([written]);
      } catch (error) {
        return alone.reject(appendError(error, alone));
      }
    }
    // The events are already JSON text: splice them in rather than parse and serialise them again.
    const payload = `[${units
      .flatMap((unit, group) =>
        unit.streams.map(
          (s) => `{"stream":${JSON.stringify(s.streamId)},"expected":"${String(s.expected)}","group":${group},"events":${s.events}}`,
        ),
      )
      .join(",")}]`;
    let rows: SetRow[];
    try {
      ({ rows } = await sql<SetRow>`
        SELECT ord::text AS ord, outcome, next_revision, commit_position, prepare_position, actual_revision
          FROM eventstore.append_set(${payload}::jsonb)`.execute(this.db));
    } catch (error) {
      if (units.length === 1) units[0]!.reject(appendError(error, units[0]!));
      else for (const unit of units) await this.together([unit]);
      return;
    }
    const byOrd = new Array<SetRow>(rows.length);
    for (const r of rows) byOrd[Number(r.ord) - 1] = r;
    let row = 0;
    for (const unit of units) {
      const own = byOrd.slice(row, row + unit.streams.length);
      row += unit.streams.length;
      const conflicted = own.findIndex((r) => r.outcome === CONFLICT);
      if (conflicted >= 0) unit.reject(conflict(unit.streams[conflicted]!, own[conflicted]!.actual_revision));
      else unit.resolve(own.map(toResult));
    }
  }
}

function toResult(row: SetRow): AppendResult {
  if (row.outcome !== WRITTEN && row.outcome !== ALREADY_WRITTEN && row.outcome !== EMPTY) {
    throw new Error(`append_set outcome ${row.outcome} is not a result`);
  }
  return {
    nextExpectedRevision: BigInt(row.next_revision!),
    position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
  };
}

function conflict(append: PendingStream, actualText: string): WrongExpectedRevisionError {
  const actual = BigInt(actualText);
  return new WrongExpectedRevisionError(append.streamId, append.expected, actual < 0n ? "no_stream" : actual);
}

function appendError(error: unknown, unit: PendingUnit): unknown {
  const { code, constraint } = error as { code?: string; constraint?: string };
  if (code === "23505" && constraint === "events_event_id_key") {
    const streams = unit.streams.map((s) => s.streamId).join(", ");
    return new Error(`stream ${streams}: an event id of this append is already used by another event`, { cause: error });
  }
  return error;
}
