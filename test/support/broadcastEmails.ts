import { broadcastStream, emailStream, type BroadcastEvent } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/** A broadcast's events, typed, as its stream holds them. */
export async function broadcastEvents(store: EventStore, broadcastId: string): Promise<BroadcastEvent[]> {
  return (await store.readStream(broadcastStream(broadcastId))).map((e) => ({ type: e.type, data: e.data }) as BroadcastEvent);
}

/** The recipients the broadcast's fan-out planned, batch after batch. */
export function plannedRecipients(events: BroadcastEvent[]) {
  return events.flatMap((e) => (e.type === "BroadcastBatchPlanned" ? e.data.recipients : []));
}

/**
 * How many of the emails' streams have each shape, their event types joined by commas with EmailSent left
 * out: `{ "EmailQueued,EmailDelivered": n }` is one queued email and one outcome each.
 */
export async function emailStreamShapes(store: EventStore, emailIds: string[]): Promise<Record<string, number>> {
  const shapes = new Map<string, number>();
  for (let i = 0; i < emailIds.length; i += 200) {
    const streams = await Promise.all(emailIds.slice(i, i + 200).map((emailId) => store.readStream(emailStream(emailId))));
    for (const s of streams) {
      const shape = s
        .map((e) => e.type)
        .filter((t) => t !== "EmailSent")
        .join(",");
      shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
    }
  }
  return Object.fromEntries(shapes);
}

/** The Message-IDs the server at `apiUrl` gives these emails. */
export const messageIdsOf = (emailIds: string[], apiUrl: string): Set<string> =>
  new Set(emailIds.map((emailId) => `<${emailId}@${new URL(apiUrl).hostname}>`));
