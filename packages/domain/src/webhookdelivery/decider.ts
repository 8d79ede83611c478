import { DomainError, type Decider } from "../decider.js";
import type { WebhookDeliveryEvent, WebhookDeliveryPayload } from "./events.js";

/** docs/wire-compatibility.md §6.16: a delivery's (`webhook_event`'s) status. */
export type WebhookDeliveryStatus = "pending" | "attempting" | "success" | "failed";

/** docs/wire-compatibility.md §8.4: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each failure. */
export const WEBHOOK_RETRY_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

export type WebhookDeliveryCommand =
  | {
      type: "CreateWebhookDelivery";
      deliveryId: string;
      webhookId: string;
      teamId: string;
      eventId: string;
      payload: WebhookDeliveryPayload;
      now: string;
    }
  | {
      type: "RecordWebhookAttempt";
      /** The attempt this records: one already recorded is not recorded again. */
      attempt: number;
      succeeded: boolean;
      statusCode: number | null;
      response: string;
      durationMs: number;
      /** The retry schedule; entry k is the wait before attempt k + 1 of a round (entry 0 is the first). */
      scheduleMs: number[];
      now: Date;
    }
  | { type: "ReplayWebhookDelivery"; teamId: string; webhookId: string; now: string }
  | { type: "AbandonWebhookDelivery"; reason: string; now: string };

export type WebhookDeliveryState =
  | { status: "none" }
  | {
      status: WebhookDeliveryStatus;
      deliveryId: string;
      webhookId: string;
      teamId: string;
      payload: WebhookDeliveryPayload;
      /** Attempts recorded, over all rounds. */
      attempts: number;
      /** Attempts since creation or the last replay: the position in the retry schedule. */
      roundAttempts: number;
      nextAttemptAt: string | null;
    };

export type LiveWebhookDelivery = Exclude<WebhookDeliveryState, { status: "none" }>;

export const isDeliveryDone = (state: WebhookDeliveryState) => state.status === "success" || state.status === "failed";

const iso = (date: Date) => date.toISOString();

export const webhookDeliveryDecider: Decider<WebhookDeliveryCommand, WebhookDeliveryEvent, WebhookDeliveryState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    if (event.type === "WebhookDeliveryCreated") {
      const { deliveryId, webhookId, teamId, payload } = event.data;
      return { status: "pending", deliveryId, webhookId, teamId, payload, attempts: 0, roundAttempts: 0, nextAttemptAt: null };
    }
    if (state.status === "none") return state;
    switch (event.type) {
      case "WebhookDeliveryAttempted": {
        const { attempt, succeeded, nextAttemptAt } = event.data;
        const status = succeeded ? "success" : nextAttemptAt === null ? "failed" : "attempting";
        return {
          ...state,
          status,
          attempts: attempt,
          roundAttempts: state.roundAttempts + 1,
          nextAttemptAt: succeeded ? null : nextAttemptAt,
        };
      }
      case "WebhookDeliveryReplayed":
        return { ...state, status: "pending", roundAttempts: 0, nextAttemptAt: null };
      case "WebhookDeliveryAbandoned":
        return { ...state, status: "failed", nextAttemptAt: null };
    }
  },
  decide(command, state) {
    if (command.type === "CreateWebhookDelivery") {
      if (state.status !== "none") return [];
      const { deliveryId, webhookId, teamId, eventId, payload, now } = command;
      return [
        {
          type: "WebhookDeliveryCreated",
          data: { deliveryId, webhookId, teamId, eventId, eventType: payload.type, payload, createdAt: now },
        },
      ];
    }
    if (command.type === "ReplayWebhookDelivery") {
      if (state.status === "none" || state.teamId !== command.teamId || state.webhookId !== command.webhookId)
        return new DomainError("not_found", "Webhook event not found");
      return [
        { type: "WebhookDeliveryReplayed", data: { deliveryId: state.deliveryId, webhookId: state.webhookId, replayedAt: command.now } },
      ];
    }
    // Outcomes come from the saga, which may run an attempt twice: a done delivery records nothing more.
    if (state.status === "none" || isDeliveryDone(state)) return [];
    const deliveryId = state.deliveryId;
    switch (command.type) {
      case "RecordWebhookAttempt": {
        if (command.attempt <= state.attempts) return [];
        const { attempt, succeeded, statusCode, response, durationMs, scheduleMs, now } = command;
        const wait = succeeded ? undefined : scheduleMs[state.roundAttempts + 1];
        const nextAttemptAt = wait === undefined ? null : iso(new Date(now.getTime() + wait));
        return [
          {
            type: "WebhookDeliveryAttempted",
            data: { deliveryId, attempt, succeeded, statusCode, response, durationMs, attemptedAt: iso(now), nextAttemptAt },
          },
        ];
      }
      case "AbandonWebhookDelivery":
        return [{ type: "WebhookDeliveryAbandoned", data: { deliveryId, reason: command.reason, abandonedAt: command.now } }];
    }
  },
};
