import { describe, it } from "vitest";
import { given, now, teamId } from "../testing/scenario.js";
import { contactImportDecider, IMPORT_ROW_ERRORS_KEPT, noImportCounts } from "./decider.js";
import type { ContactImportEvent } from "./events.js";

const importId = "00000000-0000-4000-8000-000000000001";
const columnMap = { email: "email", firstName: null, lastName: null, unsubscribed: null, properties: {} };
const queue = {
  type: "QueueContactImport" as const,
  importId,
  teamId,
  file: { sha256: "ab", size: 10 },
  columnMap,
  onConflict: "upsert" as const,
  segmentIds: [],
  topics: [],
  now,
};
const queued: ContactImportEvent = {
  type: "ContactImportQueued",
  data: { importId, teamId, file: { sha256: "ab", size: 10 }, columnMap, onConflict: "upsert", segmentIds: [], topics: [], createdAt: now },
};
const started: ContactImportEvent = { type: "ContactImportStarted", data: { importId, startedAt: now } };
const counts = { ...noImportCounts, total: 2, created: 1, failed: 1 };
const progressed: ContactImportEvent = {
  type: "ContactImportProgressed",
  data: { importId, rowsDone: 2, counts, errors: [{ line: 3, reason: "missing email" }] },
};

describe("contact import decider", () => {
  it("queues once", () => {
    given(contactImportDecider).when(queue).then([queued]);
    given(contactImportDecider, [queued]).when(queue).then([]);
  });
  it("starts a queued import once", () => {
    given(contactImportDecider, [queued]).when({ type: "StartContactImport", now }).then([started]);
    given(contactImportDecider, [queued, started]).when({ type: "StartContactImport", now }).then([]);
  });
  it("records progress only forwards, so a restarted run never counts a row twice", () => {
    given(contactImportDecider, [queued, started])
      .when({ type: "RecordContactImportProgress", rowsDone: 2, counts, errors: [{ line: 3, reason: "missing email" }] })
      .then([progressed]);
    given(contactImportDecider, [queued, started, progressed])
      .when({ type: "RecordContactImportProgress", rowsDone: 2, counts, errors: [] })
      .then([]);
  });
  it(`keeps the first ${IMPORT_ROW_ERRORS_KEPT} row errors`, () => {
    const errors = Array.from({ length: IMPORT_ROW_ERRORS_KEPT + 5 }, (_, i) => ({ line: i + 2, reason: "missing email" }));
    const many = { ...noImportCounts, total: errors.length, failed: errors.length };
    given(contactImportDecider, [queued, started, progressed])
      .when({ type: "RecordContactImportProgress", rowsDone: 200, counts: many, errors })
      .then([
        {
          type: "ContactImportProgressed",
          data: { importId, rowsDone: 200, counts: many, errors: errors.slice(0, IMPORT_ROW_ERRORS_KEPT - 1) },
        },
      ]);
  });
  it("completes with the last counts, and then takes no more work", () => {
    const completed: ContactImportEvent = { type: "ContactImportCompleted", data: { importId, teamId, counts, completedAt: now } };
    given(contactImportDecider, [queued, started, progressed]).when({ type: "CompleteContactImport", now }).then([completed]);
    given(contactImportDecider, [queued, started, progressed, completed])
      .when({ type: "RecordContactImportProgress", rowsDone: 9, counts, errors: [] })
      .then([]);
    given(contactImportDecider, [queued, started, progressed, completed]).when({ type: "FailContactImport", reason: "x", now }).then([]);
  });
  it("fails with a reason", () => {
    given(contactImportDecider, [queued, started])
      .when({ type: "FailContactImport", reason: "no `email` column", now })
      .then([{ type: "ContactImportFailed", data: { importId, teamId, reason: "no `email` column", failedAt: now } }]);
  });
  it("does not find an import never queued", () => {
    given(contactImportDecider).when({ type: "StartContactImport", now }).thenError("not_found");
  });
});
