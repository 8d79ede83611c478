import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, migrate, testMode, type TestDatabase } from "@tidings/postgres";
import { automationMigrations } from "./migrations.js";
import { parkedRuns, type ParkedRuns } from "./parkedRuns.js";

describe(`parked runs (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  let test: TestDatabase;
  let parked: ParkedRuns;
  beforeAll(async () => {
    test = await createTestDatabase();
    await migrate(test.database, "automations", automationMigrations);
    parked = parkedRuns(test.database);
  });
  afterAll(async () => {
    await test?.dispose();
  });

  it("answers many asks at once each with the runs awaiting its own team, contact and event", async () => {
    const teamId = randomUUID();
    const contacts = Array.from({ length: 30 }, () => randomUUID());
    // Contact i has i % 3 runs waiting for "signed.up", and one waiting for another event.
    const runs = contacts.flatMap((contactId, i) =>
      Array.from({ length: i % 3 }, (_, k) => ({ runId: randomUUID(), contactId, stepKey: `wait_${k}`, eventName: "signed.up" })).concat([
        { runId: randomUUID(), contactId, stepKey: "other", eventName: "paid" },
      ]),
    );
    for (const run of runs) await parked.park({ ...run, automationId: randomUUID(), teamId });

    const asks = [...contacts.map((contactId) => ({ teamId, contactId })), ...contacts.slice(0, 5).map((contactId) => ({ teamId: randomUUID(), contactId }))];
    const answers = await Promise.all(asks.map((a) => parked.awaiting(a.teamId, a.contactId, "signed.up")));

    answers.forEach((answer, i) => {
      const ask = asks[i]!;
      const expected = ask.teamId === teamId ? runs.filter((r) => r.contactId === ask.contactId && r.eventName === "signed.up") : [];
      expect(answer.map((r) => `${r.runId}:${r.stepKey}`).sort()).toEqual(expected.map((r) => `${r.runId}:${r.stepKey}`).sort());
    });
  });
});
