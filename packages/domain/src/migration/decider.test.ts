import { describe, expect, it } from "vitest";
import { fold } from "../decider.js";
import { given, now, teamId } from "../testing/scenario.js";
import { migrationDecider } from "./decider.js";
import type { MigrationEvent } from "./events.js";

const migrationId = "00000000-0000-4000-8000-0000000000a1";
const localId = "00000000-0000-4000-8000-0000000000b2";
const source = "https://api.resend.com";
const started: MigrationEvent = { type: "MigrationStarted", data: { migrationId, teamId, source, startedAt: now } };
const copied: MigrationEvent = {
  type: "ResourceCopied",
  data: { migrationId, kind: "topic", sourceId: "src-1", localId, copiedAt: now },
};
const record = { type: "RecordCopiedResource" as const, kind: "topic" as const, sourceId: "src-1", localId, now };

describe("migration decider", () => {
  it("starts once: a resumed run goes on in the same stream", () => {
    const start = { type: "StartMigration" as const, migrationId, teamId, source, now };
    given(migrationDecider).when(start).then([started]);
    given(migrationDecider, [started, copied]).when(start).then([]);
  });
  it("records a copied resource once, so a resumed run copies nothing twice", () => {
    given(migrationDecider, [started]).when(record).then([copied]);
    given(migrationDecider, [started, copied]).when(record).then([]);
  });
  it("keeps source ids apart by kind", () => {
    given(migrationDecider, [started, copied])
      .when({ ...record, kind: "segment" })
      .then([{ type: "ResourceCopied", data: { ...copied.data, kind: "segment" } }]);
  });
  it("refuses to map a source resource to a second local one", () => {
    given(migrationDecider, [started, copied])
      .when({ ...record, localId: "00000000-0000-4000-8000-0000000000c3" })
      .thenError("conflict", /copied already/);
  });
  it("records every completed run, with what it copied", () => {
    const completed: MigrationEvent = { type: "MigrationCompleted", data: { migrationId, copied: 1, completedAt: now } };
    given(migrationDecider, [started, copied]).when({ type: "CompleteMigrationRun", copied: 1, now }).then([completed]);
    given(migrationDecider, [started, copied, completed])
      .when({ type: "CompleteMigrationRun", copied: 0, now })
      .then([{ type: "MigrationCompleted", data: { migrationId, copied: 0, completedAt: now } }]);
  });
  it("shows a run under way from its first copy until it completes", () => {
    const completed: MigrationEvent = { type: "MigrationCompleted", data: { migrationId, copied: 1, completedAt: now } };
    const later: MigrationEvent = { type: "ResourceCopied", data: { ...copied.data, sourceId: "src-2" } };
    expect(fold(migrationDecider, [started, copied, completed])).toMatchObject({ status: "completed", runsCompleted: 1, copiedCount: 1 });
    expect(fold(migrationDecider, [started, copied, completed, later])).toMatchObject({ status: "started", copiedCount: 2 });
  });
  it("takes nothing for a migration never started", () => {
    given(migrationDecider).when(record).thenError("not_found");
    given(migrationDecider).when({ type: "CompleteMigrationRun", copied: 0, now }).thenError("not_found");
  });
});
