import { describe, expect, it } from "vitest";
import { given, now, otherTeam, teamId } from "../testing/scenario.js";
import { broadcastDecider } from "./decider.js";
import type { BroadcastContent, BroadcastEvent } from "./events.js";

const broadcastId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const segmentId = "1d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const contactId = "2d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const later = "2026-11-24 10:00:00.000000+00";

const content: BroadcastContent = {
  name: "November news",
  segmentId,
  from: "Acme <news@acme.test>",
  subject: "Hello {{{contact.first_name|there}}}",
  html: "<p>Hi</p>",
  text: null,
  replyTo: null,
  previewText: null,
  topicId: null,
};

const created = (overrides: Partial<Extract<BroadcastEvent, { type: "BroadcastCreated" }>["data"]> = {}): BroadcastEvent => ({
  type: "BroadcastCreated",
  data: { ...content, broadcastId, teamId, origin: "api", duplicatedFrom: null, createdAt: now, ...overrides },
});
const scheduled: BroadcastEvent = {
  type: "BroadcastScheduled",
  data: { broadcastId, teamId, domainId: null, scheduledAt: later, at: now },
};
const queued: BroadcastEvent = { type: "BroadcastQueued", data: { broadcastId, teamId, domainId: null, queuedAt: now } };
const planned = (batch: number): BroadcastEvent => ({
  type: "BroadcastBatchPlanned",
  data: { broadcastId, teamId, batch, recipients: [{ contactId, email: "ann@example.test" }], count: 1 },
});
const started = (batches: number): BroadcastEvent => ({
  type: "BroadcastSendingStarted",
  data: { broadcastId, batches, recipients: batches, startedAt: now },
});
const batchQueued = (batch: number): BroadcastEvent => ({ type: "BroadcastBatchQueued", data: { broadcastId, batch, emails: 1, at: now } });
const canceled: BroadcastEvent = { type: "BroadcastCanceled", data: { broadcastId, canceledAt: now } };
const sent: BroadcastEvent = { type: "BroadcastSent", data: { broadcastId, sentAt: now } };

describe("broadcast decider: requests", () => {
  it("creates a draft, and a repeated create appends nothing", () => {
    given(broadcastDecider)
      .when({ type: "CreateBroadcast", broadcastId, teamId, origin: "api", content, duplicatedFrom: null, now })
      .then([created()]);
    given(broadcastDecider, [created()])
      .when({ type: "CreateBroadcast", broadcastId, teamId, origin: "api", content, duplicatedFrom: null, now })
      .then([]);
  });

  it("updates a draft with the whole content, and only a draft", () => {
    given(broadcastDecider, [created()])
      .when({ type: "UpdateBroadcast", teamId, changes: { subject: "New" }, now: later })
      .then([{ type: "BroadcastUpdated", data: { ...content, subject: "New", broadcastId, updatedAt: later } }]);
    given(broadcastDecider, [created(), scheduled])
      .when({ type: "UpdateBroadcast", teamId, changes: { subject: "New" }, now })
      .thenError("broadcast_state_conflict", /scheduled/);
    given(broadcastDecider, [created()]).when({ type: "UpdateBroadcast", teamId, changes: {}, now }).then([]);
  });

  it("deletes drafts only", () => {
    given(broadcastDecider, [created()])
      .when({ type: "DeleteBroadcast", teamId, now })
      .then([{ type: "BroadcastDeleted", data: { broadcastId, deletedAt: now } }]);
    given(broadcastDecider, [created(), queued])
      .when({ type: "DeleteBroadcast", teamId, now })
      .thenError("broadcast_state_conflict", /queued/);
  });

  it("hides another team's broadcast and a deleted one", () => {
    given(broadcastDecider, [created()])
      .when({ type: "SendBroadcast", teamId: otherTeam, scheduledAt: null, domainId: null, now })
      .thenError("not_found");
    given(broadcastDecider, [created(), { type: "BroadcastDeleted", data: { broadcastId, deletedAt: now } }])
      .when({ type: "SendBroadcast", teamId, scheduledAt: null, domainId: null, now })
      .thenError("not_found");
  });

  it("queues a send now and schedules a send later", () => {
    given(broadcastDecider, [created()]).when({ type: "SendBroadcast", teamId, scheduledAt: null, domainId: null, now }).then([queued]);
    given(broadcastDecider, [created()]).when({ type: "SendBroadcast", teamId, scheduledAt: later, domainId: null, now }).then([scheduled]);
  });

  it("rejects the send of a broadcast not created through the API (docs/wire-compatibility.md §10.1)", () => {
    given(broadcastDecider, [created({ origin: "dashboard" })])
      .when({ type: "SendBroadcast", teamId, scheduledAt: null, domainId: null, now })
      .thenError("broadcast_state_conflict", /not created through the API/);
  });

  it("rejects a send of a draft missing what a send needs, and a second send", () => {
    given(broadcastDecider, [created({ segmentId: null })])
      .when({ type: "SendBroadcast", teamId, scheduledAt: null, domainId: null, now })
      .thenError("missing_required_field", /segment_id/);
    given(broadcastDecider, [created({ html: null, text: "" })])
      .when({ type: "SendBroadcast", teamId, scheduledAt: null, domainId: null, now })
      .thenError("validation_error", /html/);
    given(broadcastDecider, [created(), queued])
      .when({ type: "SendBroadcast", teamId, scheduledAt: null, domainId: null, now })
      .thenError("broadcast_state_conflict", /queued/);
  });

  it("cancels a scheduled broadcast back to a draft, a queued or sending one for good, and nothing else", () => {
    given(broadcastDecider, [created(), scheduled])
      .when({ type: "CancelBroadcast", teamId, now })
      .then([{ type: "BroadcastUnscheduled", data: { broadcastId, at: now } }]);
    given(broadcastDecider, [created(), queued]).when({ type: "CancelBroadcast", teamId, now }).then([canceled]);
    given(broadcastDecider, [created(), queued, planned(0), started(1)])
      .when({ type: "CancelBroadcast", teamId, now })
      .then([canceled]);
    given(broadcastDecider, [created()])
      .when({ type: "CancelBroadcast", teamId, now })
      .thenError("broadcast_state_conflict", /Only queued or scheduled/);
    given(broadcastDecider, [created(), queued, started(0), sent])
      .when({ type: "CancelBroadcast", teamId, now })
      .thenError("broadcast_state_conflict", /sent/);
  });
});

describe("broadcast decider: fan-out", () => {
  it("queues a scheduled broadcast when its timer fires, once", () => {
    given(broadcastDecider, [created(), scheduled]).when({ type: "QueueScheduledBroadcast", now }).then([queued]);
    given(broadcastDecider, [created(), scheduled, queued]).when({ type: "QueueScheduledBroadcast", now }).then([]);
    given(broadcastDecider, [created(), scheduled, { type: "BroadcastUnscheduled", data: { broadcastId, at: now } }])
      .when({ type: "QueueScheduledBroadcast", now })
      .then([]);
  });

  it("plans batches in order, each once", () => {
    const recipients = [{ contactId, email: "ann@example.test" }];
    given(broadcastDecider, [created(), queued])
      .when({ type: "PlanBroadcastBatch", batch: 0, recipients })
      .then([planned(0)]);
    given(broadcastDecider, [created(), queued, planned(0)])
      .when({ type: "PlanBroadcastBatch", batch: 0, recipients })
      .then([]);
    given(broadcastDecider, [created(), queued])
      .when({ type: "PlanBroadcastBatch", batch: 1, recipients })
      .thenError("broadcast_state_conflict");
  });

  it("starts sending with the snapshot's size, then records each batch once and in order", () => {
    given(broadcastDecider, [created(), queued, planned(0), planned(1)])
      .when({ type: "StartBroadcastSending", now })
      .then([{ type: "BroadcastSendingStarted", data: { broadcastId, batches: 2, recipients: 2, startedAt: now } }]);
    const sending = [created(), queued, planned(0), planned(1), started(2)];
    given(broadcastDecider, sending)
      .when({ type: "RecordBroadcastBatchQueued", batch: 0, emails: 1, now })
      .then([batchQueued(0)]);
    given(broadcastDecider, [...sending, batchQueued(0)])
      .when({ type: "RecordBroadcastBatchQueued", batch: 0, emails: 1, now })
      .then([]);
    given(broadcastDecider, sending)
      .when({ type: "RecordBroadcastBatchQueued", batch: 1, emails: 1, now })
      .thenError("broadcast_state_conflict");
  });

  it("counts the snapshot by each batch's count, reading no recipient, and a batch planned without one by its recipients", () => {
    // What a sealed plan's recipients are to a reader that must not open them.
    const unread = (batch: number, count: number): BroadcastEvent => {
      const data = { broadcastId, teamId, batch, count };
      return {
        type: "BroadcastBatchPlanned",
        data: Object.defineProperty(data, "recipients", {
          get: () => expect.fail("a recipient was read"),
        }) as typeof data & { recipients: [] },
      };
    };
    const { count: _count, ...uncounted } = (planned(2) as Extract<BroadcastEvent, { type: "BroadcastBatchPlanned" }>).data;
    given(broadcastDecider, [created(), queued, unread(0, 500), unread(1, 3), { type: "BroadcastBatchPlanned", data: uncounted }])
      .when({ type: "StartBroadcastSending", now })
      .then([{ type: "BroadcastSendingStarted", data: { broadcastId, batches: 3, recipients: 504, startedAt: now } }]);
  });

  it("is sent once every batch is queued, not before", () => {
    const sending = [created(), queued, planned(0), planned(1), started(2), batchQueued(0)];
    given(broadcastDecider, sending).when({ type: "CompleteBroadcast", now }).then([]);
    given(broadcastDecider, [...sending, batchQueued(1)])
      .when({ type: "CompleteBroadcast", now })
      .then([sent]);
    given(broadcastDecider, [created(), queued, started(0)])
      .when({ type: "CompleteBroadcast", now })
      .then([sent]);
  });

  it("takes no step once canceled", () => {
    const canceledMidway = [created(), queued, planned(0), planned(1), started(2), batchQueued(0), canceled];
    given(broadcastDecider, canceledMidway).when({ type: "RecordBroadcastBatchQueued", batch: 1, emails: 1, now }).then([]);
    given(broadcastDecider, canceledMidway).when({ type: "CompleteBroadcast", now }).then([]);
    given(broadcastDecider, [created(), queued, canceled]).when({ type: "PlanBroadcastBatch", batch: 0, recipients: [] }).then([]);
  });

  it("fails a queued or sending broadcast, once", () => {
    const failed: BroadcastEvent = { type: "BroadcastFailed", data: { broadcastId, reason: "segment deleted", failedAt: now } };
    given(broadcastDecider, [created(), queued]).when({ type: "FailBroadcast", reason: "segment deleted", now }).then([failed]);
    given(broadcastDecider, [created(), queued, failed]).when({ type: "FailBroadcast", reason: "segment deleted", now }).then([]);
  });
});
