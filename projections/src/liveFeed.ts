import { comparePositions, subscriptionBatches, type EventStore, type Position, type RecordedEvent, type Subscription } from "@tidings/eventstore";

export interface LiveFeedOptions {
  store: EventStore;
  batchSize: number;
  batchMs: number;
  /** How long a new feed waits before its first batch, so the projections starting beside it can join. */
  joinWindowMs?: number;
}

/** One batch handed to a member (null: the feed has ended), and the promise of the one after it. */
interface Link {
  batch: RecordedEvent[] | null;
  next: Promise<Link>;
}

interface Member {
  /**
   * The first batch this member gets, handed over once: kept, it would hold every batch after it too,
   * each link holding the next (the projector's heap grew with every event it projected).
   */
  takeFirst(): Promise<Link>;
  deliver(batch: RecordedEvent[] | null, error?: unknown): void;
  /** Resolves once the member has applied the batch it was given (or left). */
  ready: Promise<void>;
  markReady(): void;
}

/**
 * One reading of `$all` for every live projection this process leads from the same checkpoint: each would
 * otherwise read and parse every event itself. The members take each batch in lockstep, so they stay at
 * the same checkpoint; read-your-writes waits for all of them anyway. Each still applies its batch in its
 * own transaction, so one projection's failure is its own. A projection at another position (a rebuild
 * that just switched, a retry after a failure) gets no feed from `join` and reads `$all` itself.
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
          for (let link = member.takeFirst(); ; ) {
            const { batch, next } = await link;
            if (batch === null) return;
            yield batch;
            member.markReady();
            link = next;
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

function newMember(): Member {
  const pending = () => {
    let settle!: { resolve(link: Link): void; reject(error: unknown): void };
    const promise = new Promise<Link>((resolve, reject) => (settle = { resolve, reject }));
    promise.catch(() => {});
    return { promise, settle };
  };
  let current = pending();
  let first: Promise<Link> | undefined = current.promise;
  let resolveReady: () => void = () => {};
  const member: Member = {
    takeFirst() {
      const taken = first!;
      first = undefined;
      return taken;
    },
    ready: Promise.resolve(),
    deliver(batch, error) {
      const following = pending();
      member.ready = new Promise((resolve) => (resolveReady = resolve));
      if (error !== undefined) current.settle.reject(error);
      else current.settle.resolve({ batch, next: following.promise });
      current = following;
    },
    markReady: () => resolveReady(),
  };
  return member;
}
