import { loadState, handleCommand } from "@tidings/commands";
import { formatTimestamp } from "@tidings/core";
import { broadcastDecider, broadcastStream } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { fromForwardedEvent, type Bus, type Consumer, type ForwardedEvent } from "@tidings/bus";
import { broadcastScheduleDurable, broadcastScheduleEvents } from "../durables.js";
import { instantOf } from "../delivery/emailStream.js";
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
export async function queueScheduledBroadcast(store: EventStore, broadcastId: string): Promise<void> {
  const state = await loadState(store, broadcastStream(broadcastId), broadcastDecider);
  if (state.status !== "scheduled") return;
  await handleCommand({
    store,
    streamId: broadcastStream(broadcastId),
    decider: broadcastDecider,
    command: { type: "QueueScheduledBroadcast", now: formatTimestamp(new Date()) },
    metadata: { teamId: state.teamId, actor: "saga:broadcast-scheduler", correlationId: broadcastId, causationId: broadcastId, occurredAt: formatTimestamp(new Date()) },
  });
}

export async function startBroadcastScheduleSaga(options: { bus: Bus; store: EventStore; timers: Timers }): Promise<Consumer[]> {
  const { bus, store, timers } = options;
  return Promise.all(
    broadcastScheduleEvents.map((type) =>
      bus.consume({ durable: broadcastScheduleDurable(type), filterSubject: `events.broadcast.${type}`, maxDeliver: 10, concurrency: 4 }, async (message) => {
        const event = fromForwardedEvent(message.data as ForwardedEvent);
        await syncBroadcastTimer(store, timers, (event.data as { broadcastId: string }).broadcastId);
      }),
    ),
  );
}
