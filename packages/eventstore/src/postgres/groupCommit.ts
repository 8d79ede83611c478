import { sql, type Kysely } from "kysely";
import { WrongExpectedRevisionError, type AppendResult, type EventToAppend, type ExpectedRevision } from "../port.js";
import { WRONG_EXPECTED_REVISION } from "./migrations.js";

interface PendingAppend {
  streamId: string;
  expected: ExpectedRevision;
  /** The events as JSON text, built once. */
  events: string;
  count: number;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

export interface GroupCommitOptions {
  /** Round trips in flight at once; appends arriving meanwhile wait and go together in the next one. */
  inFlight: number;
  /** At most this many events in one round trip. */
  maxEvents: number;
}

/**
 * Group commit for the appends of this process. An append that finds a round trip free goes at once,
 * alone; appends that arrive while every round trip is busy wait and then go together, in one
 * transaction with one WAL flush and one NOTIFY, each with its own result or WrongExpectedRevisionError.
 * If the batch fails as a whole (a duplicate event id, a lost connection), each of its appends is retried
 * alone, so an error reaches only the append that caused it; a batch that did commit is then seen by the
 * retries as idempotent re-appends, which return the first result.
 *
 * An `immediate` append skips the queue: it goes at once, alone, even when every round trip is busy.
 */
export class GroupCommit {
  private readonly queue: PendingAppend[] = [];
  private busy = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly db: Kysely<any>,
    private readonly options: GroupCommitOptions,
  ) {}

  append(streamId: string, events: EventToAppend[], expected: ExpectedRevision, immediate = false): Promise<AppendResult> {
    const json = JSON.stringify(events.map((e) => ({ id: e.id, type: e.type, data: e.data ?? null, metadata: e.metadata ?? {} })));
    return new Promise((resolve, reject) => {
      const append = { streamId, expected, events: json, count: events.length, resolve, reject };
      if (immediate) this.run([append]);
      else {
        this.queue.push(append);
        this.pump();
      }
    });
  }

  /** Resolves once every append handed in so far has its outcome. */
  idle(): Promise<void> {
    if (this.busy === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.busy < this.options.inFlight && this.queue.length > 0) this.run(this.take());
  }

  private run(batch: PendingAppend[]): void {
    this.busy++;
    void (batch.length === 1 ? this.single(batch[0]!) : this.together(batch)).finally(() => {
      this.busy--;
      this.pump();
      if (this.busy === 0 && this.queue.length === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }

  private take(): PendingAppend[] {
    let events = 0;
    let n = 0;
    while (n < this.queue.length && (n === 0 || events + this.queue[n]!.count <= this.options.maxEvents)) {
      events += this.queue[n]!.count;
      n++;
    }
    return this.queue.splice(0, n);
  }

  private async single(append: PendingAppend): Promise<void> {
    try {
      const { rows } = await sql<{ next_revision: string; commit_position: string; prepare_position: string }>`
        SELECT * FROM eventstore.append(${append.streamId}, ${String(append.expected)}, ${append.events}::jsonb)`.execute(this.db);
      append.resolve(toResult(rows[0]!));
    } catch (error) {
      append.reject(appendError(error, append));
    }
  }

  private async together(batch: PendingAppend[]): Promise<void> {
    // The events are already JSON text: splice them in rather than parse and serialise them again.
    const payload = `[${batch.map((a) => `{"stream":${JSON.stringify(a.streamId)},"expected":"${String(a.expected)}","events":${a.events}}`).join(",")}]`;
    let rows: { ord: string; next_revision: string | null; commit_position: string; prepare_position: string; actual_revision: string | null }[];
    try {
      ({ rows } = await sql<(typeof rows)[number]>`
        SELECT ord::text AS ord, next_revision, commit_position, prepare_position, actual_revision
          FROM eventstore.append_batch(${payload}::jsonb)`.execute(this.db));
    } catch {
      for (const append of batch) await this.single(append);
      return;
    }
    for (const row of rows) {
      const append = batch[Number(row.ord) - 1]!;
      if (row.actual_revision === null) append.resolve(toResult(row as Parameters<typeof toResult>[0]));
      else append.reject(conflict(append, row.actual_revision));
    }
  }
}

function toResult(row: { next_revision: string; commit_position: string; prepare_position: string }): AppendResult {
  return {
    nextExpectedRevision: BigInt(row.next_revision),
    position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
  };
}

function conflict(append: PendingAppend, actualText: string): WrongExpectedRevisionError {
  const actual = BigInt(actualText);
  return new WrongExpectedRevisionError(append.streamId, append.expected, actual < 0n ? "no_stream" : actual);
}

function appendError(error: unknown, append: PendingAppend): unknown {
  const { code, detail, constraint } = error as { code?: string; detail?: string; constraint?: string };
  if (code === WRONG_EXPECTED_REVISION) return conflict(append, detail ?? "-1");
  if (code === "23505" && constraint === "events_event_id_key") {
    return new Error(`stream ${append.streamId}: an event id of this append is already used by another event`, { cause: error });
  }
  return error;
}
