/**
 * At most `size` holders at once; the others wait, and take a freed slot in the order they came.
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  /** `signal`: aborted while waiting for a slot, the hold gives up its place and throws the signal's reason. */
  async hold<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.free > 0) this.free--;
    else await this.waitForSlot(signal);
    try {
      return await work();
    } finally {
      // Handed straight to the next in line, so a newcomer can never take it first.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }

  private waitForSlot(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const take = () => {
        signal?.removeEventListener("abort", leave);
        resolve();
      };
      const leave = () => {
        const place = this.waiting.indexOf(take);
        if (place !== -1) this.waiting.splice(place, 1);
        reject(signal!.reason);
      };
      this.waiting.push(take);
      signal?.addEventListener("abort", leave, { once: true });
    });
  }
}
