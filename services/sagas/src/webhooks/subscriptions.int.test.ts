import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { createSubscriptions } from "./subscriptions.js";

describe(`webhook subscriptions (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  let test: TestDatabase;
  const teamId = randomUUID();

  const addWebhook = async (events: string[], commit: number, status = "enabled") => {
    const id = randomUUID();
    await sql`INSERT INTO webhooks (id, team_id, endpoint, events, status, secret, created_commit, created_prepare)
      VALUES (${id}, ${teamId}, ${`https://hooks.example.test/${id}`}, ${JSON.stringify(events)}::jsonb, ${status}, 'sealed', ${commit}, 0)`.execute(test.database.db);
    return id;
  };

  beforeAll(async () => {
    test = await createTestDatabase();
    // The columns of the webhooks read model the lookup reads.
    await sql`CREATE TABLE webhooks (id uuid PRIMARY KEY, team_id uuid, endpoint text, events jsonb, status text, secret text,
      previous_secret text, previous_valid_until timestamptz, created_commit numeric, created_prepare numeric)`.execute(test.database.db);
  });
  afterAll(() => test?.dispose());

  it("finds the team's enabled webhooks subscribed to the type and created before the event", async () => {
    const sent = await addWebhook(["email.sent"], 10);
    await addWebhook(["email.delivered"], 10);
    await addWebhook(["email.sent"], 10, "disabled");
    await addWebhook(["email.sent"], 30);
    const { webhooks } = await createSubscriptions(test.database).of(teamId, "email.sent", { commit: 20n, prepare: 0n });
    expect(webhooks.map((w) => w.id)).toEqual([sent]);
    expect(webhooks[0]).toMatchObject({ endpoint: `https://hooks.example.test/${sent}`, secrets: [{ sealed: "sealed", validUntil: null }] });
  });
});
