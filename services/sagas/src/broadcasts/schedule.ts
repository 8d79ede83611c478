import { loadState, handleCommand } from "@tidings/commands";
import { formatTimestamp, type Clock } from "@tidings/core";
import { broadcastDecider, broadcastStream, fold, type BroadcastEvent } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { consumeEvents, type Bus, type Consumer } from "@tidings/bus";
import { broadcastScheduleDurable, broadcastScheduleEvents } from "../durables.js";
import { instantOf } from "../delivery/emailStream.js";
import { continuing, sagaMetadata } from "../sagaMetadata.js";
import type { Timers } from "../timers/index.js";

export const broadcastTimerKey = (broadcastId: string) => `broadcast-send:${broadcastId}`;
export interface BroadcastTimerPayload {
  kind: "send-broadcast";
  broadcastId: string;
}

/** Sets the send timer from what the stream says now, so events arriving on two consumers in any order agree. */
export async function syncBroadcastTimer(store: EventStore, timers: Timers, broadcastId: string): Promise<void> {
  const state = await loadState(store, broadcastStream(broadcastId), broadcastDecider);
  if (state.status === "scheduled" && state.scheduledAt) {
    const payload: BroadcastTimerPayload = { kind: "send-broadcast", broadcastId };
    await timers.schedule(broadcastTimerKey(broadcastId), instantOf(state.scheduledAt), payload);
  } else {
    await timers.cancel(broadcastTimerKey(broadcastId));
  }
}

/** The timer fired: queue the broadcast if it is still scheduled; the fan-out saga takes it from there. */
export async function queueScheduledBroadcast(store: EventStore, clock: Clock, broadcastId: string): Promise<void> {
  const recorded = await store.readStream(broadcastStream(broadcastId));
  const state = fold(
    broadcastDecider,
    recorded.map((e) => ({ type: e.type, data: e.data }) as BroadcastEvent),
  );
  if (state.status !== "scheduled") return;
  // The chain of the request that scheduled it, caused by the stream's last event (the schedule, or its change).
  const scheduled = recorded.findLast((e) => e.type === "BroadcastScheduled") ?? recorded[0]!;
  await handleCommand({
    store,
    streamId: broadcastStream(broadcastId),
    decider: broadcastDecider,
    command: { type: "QueueScheduledBroadcast", now: formatTimestamp(clock.now()) },
    metadata: sagaMetadata(clock, "broadcast-scheduler", { teamId: state.teamId, ...continuing(recorded, scheduled) }),
  });
}

export async function startBroadcastScheduleSaga(options: { bus: Bus; store: EventStore; timers: Timers }): Promise<Consumer[]> {
  const { bus, store, timers } = options;
  return Promise.all(
    broadcastScheduleEvents.map((type) =>
      consumeEvents(
        bus,
        { durable: broadcastScheduleDurable(type), category: "broadcast", type, maxDeliver: 10, concurrency: 4 },
        (event) => syncBroadcastTimer(store, timers, event.data.broadcastId),
      ),
    ),
  );
}
