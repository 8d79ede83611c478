import { DomainError, type Decider } from "../decider.js";
import type { BroadcastContent, BroadcastEvent, PlannedRecipient } from "./events.js";
import { broadcastOrigins, plannedCount } from "./events.js";

/** docs/wire-compatibility.md §6.11 and §7: the statuses the wire shows. */
export const wireBroadcastStatuses = ["draft", "scheduled", "queued", "sending", "sent", "canceled", "failed"] as const;
export type WireBroadcastStatus = (typeof wireBroadcastStatuses)[number];
/** A broadcast's status, and `deleted`, which the wire never shows: a deleted broadcast is not found. */
export type BroadcastStatus = WireBroadcastStatus | "deleted";

export interface BroadcastRecord {
  status: BroadcastStatus;
  broadcastId: string;
  teamId: string;
  origin: (typeof broadcastOrigins)[number];
  content: BroadcastContent;
  scheduledAt: string | null;
  /** The sending domain the send was checked against. */
  domainId: string | null;
  queuedAt: string | null;
  /** Planned batches so far: the snapshot is complete once sending started. */
  plannedBatches: number;
  plannedRecipients: number;
  /** Batches handed to delivery, in order: batch `queuedBatches` is the next one. */
  queuedBatches: number;
  /** Set once sending started: how many batches the snapshot holds. */
  totalBatches: number | null;
}

export type BroadcastState = { status: "none" } | BroadcastRecord;

export type BroadcastCommand =
  | {
      type: "CreateBroadcast";
      broadcastId: string;
      teamId: string;
      origin: BroadcastRecord["origin"];
      content: BroadcastContent;
      duplicatedFrom: string | null;
      now: string;
    }
  | { type: "UpdateBroadcast"; teamId: string; changes: Partial<BroadcastContent>; now: string }
  | { type: "DeleteBroadcast"; teamId: string; now: string }
  /** `scheduledAt` null sends now; already checked against `now` by `parseScheduledAt`. */
  | { type: "SendBroadcast"; teamId: string; scheduledAt: string | null; domainId: string | null; now: string }
  | { type: "CancelBroadcast"; teamId: string; now: string }
  /** The schedule's timer fired. */
  | { type: "QueueScheduledBroadcast"; now: string }
  | { type: "PlanBroadcastBatch"; batch: number; recipients: PlannedRecipient[] }
  | { type: "StartBroadcastSending"; now: string }
  | { type: "RecordBroadcastBatchQueued"; batch: number; emails: number; now: string }
  | { type: "CompleteBroadcast"; now: string }
  | { type: "FailBroadcast"; reason: string; now: string };

const notFound = () => new DomainError("not_found", "Broadcast not found");
/** docs/wire-compatibility.md §3.2: a state that forbids the action is a 403 `validation_error`. */
const conflict = (message: string) => new DomainError("broadcast_state_conflict", message);
const missing = (field: string) => new DomainError("missing_required_field", `Missing \`${field}\` field.`);

/** What a send needs that a draft may still lack: PATCH and create accept drafts without them. */
function checkSendable(content: BroadcastContent): DomainError | undefined {
  if (content.segmentId === null) return missing("segment_id");
  if (content.from === null) return missing("from");
  if (content.subject === null) return missing("subject");
  if (content.html === null && (content.text === null || content.text === ""))
    return new DomainError("validation_error", "A broadcast needs `html` or `text` to be sent.");
  return undefined;
}

const live = (state: BroadcastState, teamId: string): state is BroadcastRecord =>
  state.status !== "none" && state.status !== "deleted" && state.teamId === teamId;

export const broadcastDecider: Decider<BroadcastCommand, BroadcastEvent, BroadcastState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    if (event.type === "BroadcastCreated") {
      const { broadcastId, teamId, origin, duplicatedFrom: _d, createdAt: _c, ...content } = event.data;
      return {
        status: "draft",
        broadcastId,
        teamId,
        origin,
        content,
        scheduledAt: null,
        domainId: null,
        queuedAt: null,
        plannedBatches: 0,
        plannedRecipients: 0,
        queuedBatches: 0,
        totalBatches: null,
      };
    }
    if (state.status === "none") return state;
    switch (event.type) {
      case "BroadcastUpdated": {
        const { broadcastId: _b, updatedAt: _u, ...content } = event.data;
        return { ...state, content };
      }
      case "BroadcastDeleted":
        return { ...state, status: "deleted" };
      case "BroadcastScheduled":
        return { ...state, status: "scheduled", scheduledAt: event.data.scheduledAt, domainId: event.data.domainId };
      case "BroadcastUnscheduled":
        return { ...state, status: "draft", scheduledAt: null };
      case "BroadcastQueued":
        return { ...state, status: "queued", domainId: event.data.domainId, queuedAt: event.data.queuedAt };
      case "BroadcastBatchPlanned":
        return {
          ...state,
          plannedBatches: state.plannedBatches + 1,
          plannedRecipients: state.plannedRecipients + plannedCount(event.data),
        };
      case "BroadcastSendingStarted":
        return { ...state, status: "sending", totalBatches: event.data.batches };
      case "BroadcastBatchQueued":
        return { ...state, queuedBatches: state.queuedBatches + 1 };
      case "BroadcastSent":
        return { ...state, status: "sent" };
      case "BroadcastCanceled":
        return { ...state, status: "canceled" };
      case "BroadcastFailed":
        return { ...state, status: "failed" };
    }
  },
  decide(command, state) {
    if (command.type === "CreateBroadcast") {
      // The id is generated per request; seeing it again is a retry of the same append.
      if (state.status !== "none") return [];
      const { broadcastId, teamId, origin, content, duplicatedFrom, now } = command;
      return [{ type: "BroadcastCreated", data: { ...content, broadcastId, teamId, origin, duplicatedFrom, createdAt: now } }];
    }
    if (
      command.type === "UpdateBroadcast" ||
      command.type === "DeleteBroadcast" ||
      command.type === "SendBroadcast" ||
      command.type === "CancelBroadcast"
    ) {
      if (!live(state, command.teamId)) return notFound();
      return decideRequest(command, state);
    }
    if (state.status === "none" || state.status === "deleted") return notFound();
    return decideFanOut(command, state);
  },
};

type BroadcastRequest = Extract<BroadcastCommand, { type: "UpdateBroadcast" | "DeleteBroadcast" | "SendBroadcast" | "CancelBroadcast" }>;

function decideRequest(command: BroadcastRequest, state: BroadcastRecord): BroadcastEvent[] | DomainError {
  const { broadcastId } = state;
  switch (command.type) {
    case "UpdateBroadcast": {
      if (state.status !== "draft") return conflict(`Broadcast cannot be updated: it is ${state.status}. Only drafts can be updated.`);
      const content = { ...state.content, ...command.changes };
      if (JSON.stringify(content) === JSON.stringify(state.content)) return [];
      return [{ type: "BroadcastUpdated", data: { ...content, broadcastId, updatedAt: command.now } }];
    }
    case "DeleteBroadcast":
      if (state.status !== "draft") return conflict(`Broadcast cannot be deleted: it is ${state.status}. Only drafts can be deleted.`);
      return [{ type: "BroadcastDeleted", data: { broadcastId, deletedAt: command.now } }];
    case "SendBroadcast": {
      if (state.origin !== "api") return conflict("This broadcast was not created through the API, so it cannot be sent through the API.");
      if (state.status !== "draft") return conflict(`Broadcast cannot be sent: it is ${state.status}. Only drafts can be sent.`);
      const unsendable = checkSendable(state.content);
      if (unsendable) return unsendable;
      const { teamId } = state;
      const { domainId } = command;
      if (command.scheduledAt !== null)
        return [{ type: "BroadcastScheduled", data: { broadcastId, teamId, domainId, scheduledAt: command.scheduledAt, at: command.now } }];
      return [{ type: "BroadcastQueued", data: { broadcastId, teamId, domainId, queuedAt: command.now } }];
    }
    case "CancelBroadcast":
      if (state.status === "scheduled") return [{ type: "BroadcastUnscheduled", data: { broadcastId, at: command.now } }];
      if (state.status === "queued" || state.status === "sending")
        return [{ type: "BroadcastCanceled", data: { broadcastId, canceledAt: command.now } }];
      return conflict(`Only queued or scheduled broadcasts can be canceled; this one is ${state.status}.`);
  }
}

/**
 * The fan-out saga's commands. It may run a step twice (a redelivery, a restart), so a step already
 * recorded records nothing, and a canceled or failed broadcast takes no step at all.
 */
function decideFanOut(command: Exclude<BroadcastCommand, { teamId: string }>, state: BroadcastRecord): BroadcastEvent[] | DomainError {
  const { broadcastId, teamId } = state;
  switch (command.type) {
    case "QueueScheduledBroadcast":
      return state.status === "scheduled"
        ? [{ type: "BroadcastQueued", data: { broadcastId, teamId, domainId: state.domainId, queuedAt: command.now } }]
        : [];
    case "PlanBroadcastBatch":
      if (state.status !== "queued" || command.batch < state.plannedBatches) return [];
      if (command.batch > state.plannedBatches) return conflict(`Batch ${command.batch} planned before batch ${state.plannedBatches}.`);
      return [
        {
          type: "BroadcastBatchPlanned",
          data: { broadcastId, teamId, batch: command.batch, recipients: command.recipients, count: command.recipients.length },
        },
      ];
    case "StartBroadcastSending":
      if (state.status !== "queued") return [];
      return [
        {
          type: "BroadcastSendingStarted",
          data: { broadcastId, batches: state.plannedBatches, recipients: state.plannedRecipients, startedAt: command.now },
        },
      ];
    case "RecordBroadcastBatchQueued":
      if (state.status !== "sending" || command.batch < state.queuedBatches) return [];
      if (command.batch > state.queuedBatches) return conflict(`Batch ${command.batch} queued before batch ${state.queuedBatches}.`);
      return [{ type: "BroadcastBatchQueued", data: { broadcastId, batch: command.batch, emails: command.emails, at: command.now } }];
    case "CompleteBroadcast":
      if (state.status !== "sending" || state.queuedBatches < (state.totalBatches ?? Infinity)) return [];
      return [{ type: "BroadcastSent", data: { broadcastId, sentAt: command.now } }];
    case "FailBroadcast":
      if (state.status !== "queued" && state.status !== "sending") return [];
      return [{ type: "BroadcastFailed", data: { broadcastId, reason: command.reason, failedAt: command.now } }];
  }
}
