import { randomUUID } from "node:crypto";
import {
  comparePositions,
  type EventStore,
  type EventToAppend,
  type Position,
  type ReadAllOptions,
  type RecordedEvent,
  type Subscription,
} from "../port.js";

/** A category of its own per test, so tests that read `$all` see only their events. */
export function aCategory(): string {
  return `t${randomUUID().replace(/-/g, "").slice(0, 12)}`;
}

export function aStreamId(category = aCategory()): string {
  return `${category}-${randomUUID()}`;
}

export function anEvent(overrides: Partial<EventToAppend> = {}): EventToAppend {
  return {
    id: randomUUID(),
    type: "ThingHappened",
    data: { n: Math.floor(Math.random() * 1e6), text: "héllo" },
    metadata: { teamId: "team-1", correlationId: randomUUID(), actor: "cli" },
    ...overrides,
  };
}

export function events(count: number, overrides: Partial<EventToAppend> = {}): EventToAppend[] {
  return Array.from({ length: count }, () => anEvent(overrides));
}

/**
 * A new stream of `count` events in a category of its own, with the head position before them: where a test
 * subscribes from (`after: before`, filtered to `category`) to meet exactly these events.
 */
export async function aCategoryWithEvents(store: EventStore, count: number) {
  const category = aCategory();
  const before = await store.headPosition();
  const stream = aStreamId(category);
  const appended = events(count);
  await store.append(stream, appended, "no_stream");
  return { category, before, stream, appended };
}

/**
 * `$all` in the PostgreSQL adapter shows an event once every older transaction in the cluster has
 * ended, so a read right after an append may not show it yet. Retries until `done` holds.
 */
export async function readAllUntil(
  store: EventStore,
  options: ReadAllOptions,
  done: (events: RecordedEvent[]) => boolean,
  timeoutMs = 10_000,
): Promise<RecordedEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const read = await store.readAll(options);
    if (done(read) || Date.now() > deadline) return read;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function expectStrictlyIncreasing(positions: Position[]): void {
  for (let i = 1; i < positions.length; i++) {
    if (comparePositions(positions[i - 1]!, positions[i]!) >= 0) {
      throw new Error(
        `position ${i} does not follow the one before: ${String(positions[i - 1]!.commit)}/${String(positions[i - 1]!.prepare)} then ${String(positions[i]!.commit)}/${String(positions[i]!.prepare)}`,
      );
    }
  }
}

/** Takes events from a subscription a few at a time, keeping those `keep` accepts. */
export class SubscriptionReader {
  private readonly iterator: AsyncIterator<RecordedEvent>;

  constructor(
    readonly subscription: Subscription,
    private readonly keep: (event: RecordedEvent) => boolean = () => true,
  ) {
    this.iterator = subscription[Symbol.asyncIterator]();
  }

  async take(count: number, timeoutMs = 15_000): Promise<RecordedEvent[]> {
    return this.takeUntil((taken) => taken.length === count, `${count} events`, timeoutMs);
  }

  /** Takes kept events until `done` holds for those taken so far. */
  async takeUntil(done: (taken: RecordedEvent[]) => boolean, what: string, timeoutMs = 15_000): Promise<RecordedEvent[]> {
    const taken: RecordedEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    while (!done(taken)) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<"timeout">(
        (resolve) => (timer = setTimeout(() => resolve("timeout"), Math.max(0, deadline - Date.now()))),
      );
      const next = await Promise.race([this.iterator.next(), timeout]);
      clearTimeout(timer);
      if (next === "timeout") throw new Error(`the subscription delivered ${taken.length} events within ${timeoutMs} ms, not ${what}`);
      if (next.done) throw new Error(`the subscription ended after ${taken.length} events, before ${what}`);
      if (this.keep(next.value)) taken.push(next.value);
    }
    return taken;
  }
}
