import {
  comparePositions,
  subscriptionBatches,
  type EventStore,
  type Position,
  type RecordedEvent,
  type Subscription,
} from "@tidings/eventstore";

export interface LiveFeedOptions {
  store: EventStore;
  batchSize: number;
  batchMs: number;
  /** How long a new feed waits before its first batch, so the projections starting beside it can join. */
  joinWindowMs?: number;
}

interface Member {
  /** The next batch the feed handed this member (null: the feed has ended); throws what ended a failed feed. */
  next(): Promise<RecordedEvent[] | null>;
  deliver(batch: RecordedEvent[] | null, error?: unknown): void;
  /** Resolves once the member has applied the batch it was given (or left). */
  ready: Promise<void>;
  markReady(): void;
}

/**
 * One reading of `$all` for every live projection this process leads from the same checkpoint: each would
 * otherwise read and parse every event itself. The members take each batch in lockstep, so they stay at
 * the same checkpoint; read-your-writes waits for all of them anyway. Their writes of a batch commit
 * together (`batchCommitter`), and alone when that fails, so one projection's failure is its own. A
 * projection at another position (a rebuild that just switched, a retry after a failure) gets no feed
 * from `join` and reads `$all` itself.
 */
export class LiveFeed {
  private readonly members = new Set<Member>();
  /** Where the next batch starts: the last event handed out, or the position the feed started from. */
  private cursor: Position | undefined;
  private subscription: Subscription | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: LiveFeedOptions) {}

  /** The batches after `from`, or undefined when the feed is elsewhere. Ending the iteration leaves the feed. */
  join(from: Position): AsyncIterable<RecordedEvent[]> | undefined {
    if (this.stopped) return undefined;
    if (this.cursor !== undefined && comparePositions(this.cursor, from) !== 0) return undefined;
    const member = newMember();
    this.members.add(member);
    if (this.cursor === undefined) {
      this.cursor = from;
      this.running = this.run(from);
    }
    const members = this.members;
    return {
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            const batch = await member.next();
            if (batch === null) return;
            yield batch;
            member.markReady();
          }
        } finally {
          members.delete(member);
          member.markReady();
        }
      },
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.stop();
    await this.running;
  }

  private async run(from: Position): Promise<void> {
    const subscription = this.options.store.subscribeToAll({ after: from });
    this.subscription = subscription;
    let failure: unknown;
    try {
      if (this.options.joinWindowMs) await new Promise((resolve) => setTimeout(resolve, this.options.joinWindowMs));
      for await (const batch of subscriptionBatches(subscription, this.options.batchSize, this.options.batchMs)) {
        await Promise.all([...this.members].map((m) => m.ready));
        if (this.members.size === 0 || this.stopped) break;
        this.cursor = batch.at(-1)!.position;
        for (const member of this.members) member.deliver(batch);
      }
    } catch (error) {
      failure = error ?? new Error("the live feed failed");
    } finally {
      for (const member of this.members) member.deliver(null, failure);
      this.members.clear();
      this.cursor = undefined;
      this.subscription = undefined;
      this.running = undefined;
      await subscription.stop();
    }
  }
}

/**
 * A member's batches wait in a queue of their own, not in a chain of promises each resolving to the next:
 * whatever held on to an early link of such a chain (an async generator's frame did) held every batch
 * after it, and the projector's heap grew with every event it projected.
 */
function newMember(): Member {
  // Lockstep keeps at most one batch and the end waiting here.
  const waiting: { batch: RecordedEvent[] | null; error?: unknown }[] = [];
  let wake: (() => void) | undefined;
  let resolveReady: () => void = () => {};
  const member: Member = {
    async next() {
      while (waiting.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const { batch, error } = waiting.shift()!;
      if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
      return batch;
    },
    ready: Promise.resolve(),
    deliver(batch, error) {
      member.ready = new Promise((resolve) => (resolveReady = resolve));
      waiting.push({ batch, error });
      wake?.();
      wake = undefined;
    },
    markReady: () => resolveReady(),
  };
  return member;
}
