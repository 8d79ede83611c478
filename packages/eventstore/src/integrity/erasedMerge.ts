import { comparePositions, type Position } from "../port.js";
import type { ChainEntry } from "./records.js";

/**
 * Puts the events that erasure records stand for back into their places in `$all`, so a stretch of
 * `$all` reads as it did before the erasure. An event still there (EventStoreDB keeps a deleted stream's
 * events in `$all` until a scavenge) is read as itself, once.
 */
export class ErasedMerge {
  private next = 0;

  constructor(private readonly entries: ChainEntry[]) {
    entries.sort((a, b) => comparePositions(a.position, b.position));
  }

  /**
   * The erased entries before `position`, and whether one stood at `position` itself: that one is not
   * returned, as the event read there is it, which the caller counts as erased.
   */
  before(position: Position): { entries: ChainEntry[]; here: boolean } {
    const entries: ChainEntry[] = [];
    let here = false;
    while (this.next < this.entries.length) {
      const c = comparePositions(this.entries[this.next]!.position, position);
      if (c > 0) break;
      if (c < 0) entries.push(this.entries[this.next]!);
      else here = true;
      this.next++;
    }
    return { entries, here };
  }

  /** The erased entries left, up to `until` when given. */
  rest(until?: Position): ChainEntry[] {
    const out: ChainEntry[] = [];
    while (this.next < this.entries.length && (!until || comparePositions(this.entries[this.next]!.position, until) <= 0)) {
      out.push(this.entries[this.next++]!);
    }
    return out;
  }
}
