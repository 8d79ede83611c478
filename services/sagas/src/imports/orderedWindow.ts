export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export const unwrap = <T>(settled: Settled<T>): T => {
  if (!settled.ok) throw settled.error;
  return settled.value;
};

/**
 * Work run side by side, at most `size` under way, whose results are taken in the order it was added.
 * Work with the same key runs one after the other, in that order. Results are kept settled, so work that
 * fails while earlier work is still being taken is never an unhandled rejection.
 */
export class OrderedWindow<T> {
  private readonly queue: Promise<Settled<T>>[] = [];
  private readonly lastOfKey = new Map<string, Promise<Settled<T>>>();

  constructor(private readonly size: number) {}

  /** Starts `work`; returns the oldest result once more than `size` are under way, for the caller to wait for. */
  add(key: string | undefined, work: () => Promise<T>): Promise<Settled<T>> | undefined {
    const before = key === undefined ? undefined : this.lastOfKey.get(key);
    const run = (before ? before.then(work) : work()).then(
      (value): Settled<T> => ({ ok: true, value }),
      (error: unknown): Settled<T> => ({ ok: false, error }),
    );
    if (key !== undefined) {
      this.lastOfKey.set(key, run);
      void run.then(() => this.lastOfKey.get(key) === run && this.lastOfKey.delete(key));
    }
    this.queue.push(run);
    return this.queue.length > this.size ? this.queue.shift() : undefined;
  }

  /** The oldest result not taken yet, if any. */
  next(): Promise<Settled<T>> | undefined {
    return this.queue.shift();
  }

  /** Waits for all work under way, whatever its outcome. */
  async settle(): Promise<void> {
    await Promise.all(this.queue.splice(0));
  }
}
