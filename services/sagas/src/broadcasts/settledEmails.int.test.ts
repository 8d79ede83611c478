import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { testMode } from "@tidings/postgres";
import { testDatabaseForFile } from "@tidings/postgres/testing";
import { settledEmails } from "./pacing.js";

describe(`a broadcast's settled emails as the in-flight window reads them (${testMode()})`, () => {
  const test = testDatabaseForFile();
  const broadcastId = randomUUID();
  beforeAll(async () => {
    // The ledger as a version of the broadcasts projection from before its counter serves it.
    await sql`CREATE TABLE broadcast_recipients (id uuid PRIMARY KEY, broadcast_id uuid NOT NULL, status text NOT NULL)`.execute(
      test.database.db,
    );
    const statuses = ["planned", "queued", "queued", "sent", "delivered", "delivery_delayed", "failed"];
    for (const status of statuses)
      await sql`INSERT INTO broadcast_recipients VALUES (${randomUUID()}, ${broadcastId}, ${status})`.execute(test.database.db);
    await sql`INSERT INTO broadcast_recipients VALUES (${randomUUID()}, ${randomUUID()}, 'delivered')`.execute(test.database.db);
  });

  it("counts the ledger's recipients past queued while no counter table is there (a successor version being built)", async () => {
    expect(await settledEmails(test.database, broadcastId)).toBe(4);
  });

  it("reads the projection's counter once its table serves, and 0 for a broadcast it has not counted yet", async () => {
    await sql`CREATE TABLE broadcast_settled (broadcast_id uuid PRIMARY KEY, settled bigint NOT NULL)`.execute(test.database.db);
    await sql`INSERT INTO broadcast_settled VALUES (${broadcastId}, 41)`.execute(test.database.db);
    expect(await settledEmails(test.database, broadcastId)).toBe(41);
    expect(await settledEmails(test.database, randomUUID())).toBe(0);
  });
});
