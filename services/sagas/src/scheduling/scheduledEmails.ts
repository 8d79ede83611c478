import { scheduledEmailEvents, schedulerDurable } from "../durables.js";
import type { Clock } from "@tidings/core";
import { emailDecider, emailStream, type Decider, type EmailContent, type EmailEvent, type EmailState } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { handleCommand } from "@tidings/commands";
import { consumeEvents, type Bus, type Consumer } from "@tidings/bus";
import { instantOf, loadEmail } from "../delivery/emailStream.js";
import { sagaMetadata } from "../sagaMetadata.js";
import type { Timers } from "../timers/index.js";

export const sendTimerKey = (emailId: string) => `email-send:${emailId}`;
export type SendTimerPayload = { kind: "send-scheduled"; emailId: string };

interface QueueScheduledEmail {
  type: "QueueScheduledEmail";
}

interface ScheduledEmailState {
  email: EmailState;
  content: EmailContent | null;
}

/**
 * What the send timer appends: the email's EmailQueued, with the data it was scheduled with, only while it
 * is still scheduled. A timer that fires twice, or after a cancel, appends nothing; a cancel racing the
 * timer loses on the expected revision and is decided again on the queued email.
 */
export const queueScheduledEmailDecider: Decider<QueueScheduledEmail, EmailEvent, ScheduledEmailState> = {
  initialState: { email: emailDecider.initialState, content: null },
  evolve(state, event) {
    let content = state.content;
    if (event.type === "EmailScheduled") {
      const { scheduledAt: _, ...rest } = event.data;
      content = rest;
    }
    return { email: emailDecider.evolve(state.email, event), content };
  },
  decide(_command, state) {
    if (state.email.status !== "scheduled" || state.content === null) return [];
    return [{ type: "EmailQueued", data: state.content }];
  },
};

/** Fires a send timer: queues the email, which the delivery saga then picks up like any other. */
export async function queueScheduledEmail(store: EventStore, clock: Clock, emailId: string): Promise<void> {
  const { state, chain } = await loadEmail(store, emailId);
  if (state.status !== "scheduled" || chain === null) return;
  await handleCommand({
    store,
    streamId: emailStream(emailId),
    decider: queueScheduledEmailDecider,
    command: { type: "QueueScheduledEmail" },
    metadata: sagaMetadata(clock, "scheduler", { teamId: state.teamId, ...chain }),
  });
}

/**
 * Sets the send timer from what the stream says now, not from the one event that arrived: the three
 * events arrive on three consumers, in any order, and a redelivered EmailScheduled must not move back a
 * timer that EmailRescheduled moved.
 */
export async function syncSendTimer(store: EventStore, timers: Timers, emailId: string): Promise<void> {
  const { state } = await loadEmail(store, emailId);
  if (state.status === "scheduled" && state.scheduledAt) {
    const payload: SendTimerPayload = { kind: "send-scheduled", emailId };
    await timers.schedule(sendTimerKey(emailId), instantOf(state.scheduledAt), payload);
  } else {
    await timers.cancel(sendTimerKey(emailId));
  }
}

/** One durable consumer per event type: NATS 2.9 takes one filter subject per consumer. */
export async function startSchedulerSaga(options: { bus: Bus; store: EventStore; timers: Timers }): Promise<Consumer[]> {
  const { bus, store, timers } = options;
  return Promise.all(
    scheduledEmailEvents.map((type) =>
      consumeEvents(bus, { durable: schedulerDurable(type), category: "email", type, maxDeliver: 10, concurrency: 4 }, (event) =>
        syncSendTimer(store, timers, event.data.emailId),
      ),
    ),
  );
}
