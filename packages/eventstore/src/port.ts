/**
 * The event store port. The event store is the only source of truth (docs/architecture.md §1); everything else can be
 * rebuilt from it. Two adapters implement this: PostgreSQL (pg or PGlite) and EventStoreDB.
 */

/**
 * A global position in `$all`, ordered by `commit` then `prepare`. This is EventStoreDB's own shape. The
 * PostgreSQL adapter puts the appending transaction's id (xid8) in `commit` and the event's sequence
 * number in `prepare`: ordering by transaction id is what lets a reader never skip an event committed
 * late by a concurrent transaction (docs/architecture.md §4).
 */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

export const START: Position = { commit: 0n, prepare: 0n };

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** `commit/prepare`, for checkpoints and logs. */
export function formatPosition(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}

export function parsePosition(text: string): Position {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) throw new Error(`not a position: ${text}`);
  return { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) };
}

export type ExpectedRevision = "any" | "no_stream" | "stream_exists" | bigint;

export interface EventMetadata {
  teamId?: string;
  correlationId?: string;
  causationId?: string;
  actor?: string;
  requestId?: string;
  occurredAt?: string;
  /** The W3C trace context of the append, when tracing was on (docs/events.md, Metadata). */
  traceparent?: string;
  [key: string]: unknown;
}

export interface EventToAppend {
  /** A uuid. Re-appending the same ids at the same expected revision is an idempotent retry. */
  id: string;
  type: string;
  data: unknown;
  metadata?: EventMetadata;
}

export interface RecordedEvent {
  id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  streamId: string;
  /** 0-based revision of the event within its stream. */
  revision: bigint;
  position: Position;
  createdAt: Date;
  /**
   * The event's link in its stream's hash chain, in hex (docs/operations.md, "Integrity"). Both adapters
   * set it on every event they read; an event rebuilt elsewhere (from the bus) may not carry it.
   */
  hash?: string;
}

export interface AppendResult {
  /** The revision of the last event now in the stream. */
  nextExpectedRevision: bigint;
  /** The position of the last appended event. */
  position: Position;
}

export interface ReadStreamOptions {
  direction?: "forwards" | "backwards";
  /** Inclusive start revision; "start" or "end". Defaults to the start (forwards) or the end (backwards). */
  fromRevision?: bigint | "start" | "end";
  /** At most this many events. Defaults to all. */
  maxCount?: number;
  /**
   * The event types whose sealed values this reader does not read: the sealing store hands their data with
   * its values in clear and looks up no key for it, and reading a sealed value then throws (docs/privacy.md,
   * "Reading only what is read"). Other stores hand the data as they keep it.
   */
  unopenedTypes?: ReadonlySet<string>;
}

/** Filters `$all` by event-type prefix or by stream category (the part of the stream id before the first `-`). */
export type AllFilter = { eventTypePrefix: string[] } | { streamCategory: string[] };

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Defaults to the start. */
  after?: Position;
  maxCount?: number;
  filter?: AllFilter;
  /**
   * The event types whose data this reader reads (unset: every type). A store may hand the other events
   * without their data (`withoutData`), and reading it then throws: the PostgreSQL adapter neither sends
   * nor parses it, and the sealing store opens no key for it (docs/privacy.md, "Reading only what is
   * read"). Other stores hand it as they keep it.
   */
  dataTypes?: ReadonlySet<string>;
}

export interface SubscribeOptions {
  /** Exclusive: deliver events strictly after this position. Defaults to the start. */
  after?: Position;
  filter?: AllFilter;
  /**
   * The event types whose data this reader reads (unset: every type). A store may hand the other events
   * without their data (`withoutData`), and reading it then throws: the PostgreSQL adapter neither sends
   * nor parses it, and the sealing store opens no key for it (docs/privacy.md, "Reading only what is
   * read"). Other stores hand it as they keep it.
   */
  dataTypes?: ReadonlySet<string>;
}

/**
 * A catch-up subscription: it delivers everything after `after`, then goes live. Events come in `$all`
 * order, each exactly once. Iterate it with `for await`; `stop()` ends the iteration.
 */
export interface Subscription extends AsyncIterable<RecordedEvent> {
  stop(): Promise<void>;
}

export interface AppendOptions {
  /**
   * Never let the append wait behind other appends' group-commit sets: it goes at once, or, while the
   * immediate appends' round trips are all on the wire, together with the immediate appends that arrived
   * meanwhile in the next one. For an append that records an effect already done outside (an SMTP
   * server's 250), where every millisecond before it is on the wire is a window a crash turns into a repeat.
   */
  immediate?: boolean;
}

/** One stream's part of an `appendMany`. */
export interface StreamAppend {
  streamId: string;
  events: EventToAppend[];
  expectedRevision: ExpectedRevision;
}

export interface EventStore {
  append(streamId: string, events: EventToAppend[], expectedRevision: ExpectedRevision, options?: AppendOptions): Promise<AppendResult>;
  /**
   * Appends to several streams at once, each at its own expected revision; the results come in the order
   * given. Each stream may appear once. A wrong expected revision on any stream throws that stream's
   * WrongExpectedRevisionError.
   *
   * PostgreSQL (and PGlite): all or nothing, in one transaction. A conflict writes nothing at all, and
   * readers of `$all` see either every event or none.
   *
   * EventStoreDB (client 6.x has no multi-stream transaction): the appends go one after another, in the
   * order given, so a conflict or a crash can leave the earlier streams written and the later ones not.
   * Calling again with the same event ids and expected revisions is safe: the written ones are idempotent
   * retries and the rest is written. A caller that needs all or nothing there must make its first stream
   * the one that can conflict (a reservation), or repair on retry, as with single appends.
   */
  appendMany(appends: StreamAppend[], options?: AppendOptions): Promise<AppendResult[]>;
  /** Returns [] for a stream that does not exist or was deleted. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  subscribeToAll(options?: SubscribeOptions): Subscription;
  /**
   * Deletes a stream (erasure, docs/architecture.md §4). Afterwards the stream reads as empty and appending to it with
   * `any` starts it again. The PostgreSQL adapter removes the events from `$all` at once; EventStoreDB
   * hides them from the stream at once and drops them from `$all` at its next scavenge.
   */
  deleteStream(streamId: string): Promise<void>;
  /**
   * The position of the newest event in `$all` that a reader can be handed now, or START when empty: a
   * subscription after it misses nothing. On PostgreSQL it stops short of events committed after an
   * older append still in flight, which readers will be handed later, before the newer ones.
   */
  headPosition(): Promise<Position>;
  /**
   * The position of the newest committed event in `$all`, or START when empty: every event committed
   * before the call, by any process, is at or before it. A reader that has reached it has seen all of
   * them, which is what a decision read from a projection must wait for. Not a place to subscribe from:
   * on PostgreSQL an older append still in flight commits before it.
   */
  committedPosition(): Promise<Position>;
  /**
   * The head (last revision and hash) of every stream, as the store keeps them beside the events, where
   * it does (PostgreSQL's stream rows): `audit verify` compares them with the events to find a cut-off
   * tail that no seal covers yet (docs/operations.md, "Integrity").
   */
  streamHeads?(): AsyncIterable<{ streamId: string; revision: bigint; hash: string }>;
  close(): Promise<void>;
}

/** Thrown when the stream is not at the expected revision. */
export class WrongExpectedRevisionError extends Error {
  override readonly name = "WrongExpectedRevisionError";
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual last revision, or "no_stream". */
    readonly actual: bigint | "no_stream",
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/** The category of a stream id: `email-<uuid>` → `email`. */
export function streamCategory(streamId: string): string {
  const dash = streamId.indexOf("-");
  return dash < 0 ? streamId : streamId.slice(0, dash);
}
