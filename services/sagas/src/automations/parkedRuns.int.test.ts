import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { migrate, testMode } from "@tidings/postgres";
import { testDatabaseForFile } from "@tidings/postgres/testing";
import { automationMigrations } from "./migrations.js";
import { parkedRuns, type ParkedRuns } from "./parkedRuns.js";

describe(`parked runs (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  const test = testDatabaseForFile();
  let parked: ParkedRuns;
  beforeAll(async () => {
    await migrate(test.database, "automations", automationMigrations);
    parked = parkedRuns(test.database);
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

    const asks = [
      ...contacts.map((contactId) => ({ teamId, contactId })),
      ...contacts.slice(0, 5).map((contactId) => ({ teamId: randomUUID(), contactId })),
    ];
    const answers = await Promise.all(asks.map((a) => parked.awaiting(a.teamId, a.contactId, "signed.up")));

    answers.forEach((answer, i) => {
      const ask = asks[i]!;
      const expected = ask.teamId === teamId ? runs.filter((r) => r.contactId === ask.contactId && r.eventName === "signed.up") : [];
      expect(answer.map((r) => `${r.runId}:${r.stepKey}`).sort()).toEqual(expected.map((r) => `${r.runId}:${r.stepKey}`).sort());
    });
  });
});
