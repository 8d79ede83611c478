/**
 * At most `size` holders at once; the others wait, and take a freed slot in the order they came, those
 * that asked to go `first` before the rest.
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  private readonly waitingFirst: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  /**
   * `signal`: aborted while waiting for a slot, the hold gives up its place and throws the signal's reason.
   * `first`: waits ahead of every holder that did not ask so (a transactional email ahead of a broadcast's).
   */
  async hold<T>(work: () => Promise<T>, signal?: AbortSignal, first = false): Promise<T> {
    signal?.throwIfAborted();
    if (this.free > 0) this.free--;
    else await this.waitForSlot(signal, first ? this.waitingFirst : this.waiting);
    try {
      return await work();
    } finally {
      // Handed straight to the next in line, so a newcomer can never take it first.
      const next = this.waitingFirst.shift() ?? this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }

  private waitForSlot(signal: AbortSignal | undefined, line: (() => void)[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const take = () => {
        signal?.removeEventListener("abort", leave);
        resolve();
      };
      const leave = () => {
        const place = line.indexOf(take);
        if (place !== -1) line.splice(place, 1);
        reject(signal!.reason);
      };
      line.push(take);
      signal?.addEventListener("abort", leave, { once: true });
    });
  }
}
