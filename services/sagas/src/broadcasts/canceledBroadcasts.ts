import type { EventStore } from "@tidings/eventstore";
import { broadcastStream } from "@tidings/domain";

/**
 * Whether a broadcast was canceled, for the delivery saga to check before each of its emails' first
 * attempt. Canceled is final, so a yes is kept; a no is kept for `freshForMs`, so a broadcast costs one
 * read of its stream's last event per that time, not one per email.
 */
export function canceledBroadcasts(store: EventStore, freshForMs = 1_000): (broadcastId: string) => Promise<boolean> {
  const known = new Map<string, { canceled: boolean; at: number }>();
  return async (broadcastId) => {
    const cached = known.get(broadcastId);
    if (cached && (cached.canceled || Date.now() - cached.at < freshForMs)) return cached.canceled;
    const [last] = await store.readStream(broadcastStream(broadcastId), { direction: "backwards", maxCount: 1 });
    const canceled = last?.type === "BroadcastCanceled";
    if (known.size >= 10_000) known.clear();
    known.set(broadcastId, { canceled, at: Date.now() });
    return canceled;
  };
}
