import type { EventStore, Position } from "./port.js";

export interface Lag {
  /** Events after the position, counted up to the cap. */
  events: number;
  /** Age of the oldest of them; 0 when there are none. */
  seconds: number;
}

/** How far a reader of `$all` at `position` (a projection's or the forwarder's checkpoint) is behind. */
export async function measureLag(store: EventStore, position: Position | undefined, cap: number): Promise<Lag> {
  const pending = await store.readAll({ ...(position ? { after: position } : {}), maxCount: cap });
  const oldest = pending[0];
  return { events: pending.length, seconds: oldest ? Math.max(0, (Date.now() - oldest.createdAt.getTime()) / 1000) : 0 };
}
