/**
 * When this process's event loop stood still: a starved or paused process sends no heartbeat, and the
 * bus redelivers what it holds to another process while it still works on it (docs/architecture.md §5,
 * "Holding a message"). A timer ticks every `tickMs`; a tick that comes late records the gap before it.
 * One watcher serves the whole process, and its timer never keeps the process alive.
 */
export class EventLoopGaps {
  private lastTick = performance.now();
  /** Gaps of at least `keepMs` in the last `retainMs`, oldest first: where each ended and how long it was, in ms. */
  private readonly gaps: { end: number; length: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners: { minMs: number; listener: (lengthMs: number) => void }[] = [];

  constructor(
    private readonly tickMs = 100,
    private readonly keepMs = 250,
    private readonly retainMs = 10 * 60_000,
  ) {}

  /** Starts the watch, once; gaps before it are unknown, and the time since this object was made is none. */
  watch(): void {
    if (this.timer) return;
    this.lastTick = performance.now();
    this.timer = setInterval(() => this.tick(), this.tickMs).unref();
  }

  /** Calls `listener` with each gap of `minMs` or more, once the loop moves again, until the returned function is called. */
  onGap(minMs: number, listener: (lengthMs: number) => void): () => void {
    const entry = { minMs, listener };
    this.listeners.push(entry);
    return () => {
      const at = this.listeners.indexOf(entry);
      if (at !== -1) this.listeners.splice(at, 1);
    };
  }

  /**
   * Whether the loop stood still for `minMs` or more at any time since `since` (a `performance.now()`
   * reading), counting the gap that is only ending now, whose late tick has not run yet.
   */
  stoodStillSince(since: number, minMs: number): boolean {
    if (this.timer) this.tick();
    return this.gaps.some((gap) => gap.end >= since && gap.length >= minMs);
  }

  private tick(): void {
    const now = performance.now();
    const length = now - this.lastTick - this.tickMs;
    this.lastTick = now;
    if (length < this.keepMs) return;
    this.gaps.push({ end: now, length });
    while (this.gaps[0]!.end < now - this.retainMs) this.gaps.shift();
    for (const { minMs, listener } of this.listeners) if (length >= minMs) listener(length);
  }
}

export const eventLoopGaps = new EventLoopGaps();
