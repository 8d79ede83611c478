/**
 * At most `size` holders at once; the others wait, and take a freed slot in the order they came.
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async hold<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      // Handed straight to the next in line, so a newcomer can never take it first.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
