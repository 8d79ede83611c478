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
      VALUES (${id}, ${teamId}, ${`https://hooks.example.test/${id}`}, ${JSON.stringify(events)}::jsonb, ${status}, 'sealed', ${commit}, 0)`.execute(
      test.database.db,
    );
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
    const webhooks = (await createSubscriptions(test.database).forEvent(teamId, { commit: 20n, prepare: 0n })).due("email.sent");
    expect(webhooks.map((w) => w.id)).toEqual([sent]);
    expect(webhooks[0]).toMatchObject({
      endpoint: `https://hooks.example.test/${sent}`,
      secrets: [{ sealed: "sealed", validUntil: null }],
    });
  });

  it("tells whether any webhook listens to a category's types, so an event nobody takes is not built", async () => {
    const other = randomUUID();
    await sql`INSERT INTO webhooks (id, team_id, endpoint, events, status, secret, created_commit, created_prepare)
      VALUES (${randomUUID()}, ${other}, 'https://hooks.example.test/c', '["contact.created"]'::jsonb, 'enabled', 'sealed', 10, 0)`.execute(
      test.database.db,
    );
    const subscriptions = createSubscriptions(test.database);
    const later = await subscriptions.forEvent(other, { commit: 20n, prepare: 0n });
    expect(later.listensToAny(["email.sent", "email.delivered"])).toBe(false);
    expect(later.listensToAny(["contact.created", "contact.updated"])).toBe(true);
    const earlier = await subscriptions.forEvent(other, { commit: 5n, prepare: 0n });
    expect(earlier.listensToAny(["contact.created"])).toBe(false);
    expect((await subscriptions.forEvent(randomUUID(), { commit: 20n, prepare: 0n })).listensToAny(["contact.created"])).toBe(false);
  });
});
