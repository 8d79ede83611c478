import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { broadcastEmailId } from "@tidings/core";
import type { EventToAppend, Position } from "@tidings/eventstore";
import { testMode } from "@tidings/postgres";
import { rebuildProjection } from "../engine/rebuild.js";
import type { RunningProjections } from "../engine/runner.js";
import { storeOnTestDatabase } from "../testing/storeOnTestDatabase.js";
import { broadcastsProjection } from "./broadcasts.js";

const env = storeOnTestDatabase();
const teamId = randomUUID();
const at = "2026-01-02 03:04:05.000000+00";
let running: RunningProjections | undefined;
afterAll(async () => {
  await running?.stop();
});

const event = (type: string, data: Record<string, unknown>): EventToAppend => ({ id: randomUUID(), type, data, metadata: { teamId } });
const reply = { response: "250 ok", code: 250 };

/** A broadcast's planned batch, and each recipient's email id (as the fan-out derives it). */
function planned(broadcastId: string, contacts: number): { plan: EventToAppend; emails: string[] } {
  const recipients = Array.from({ length: contacts }, (_, i) => ({ contactId: randomUUID(), email: `r${i}@example.test` }));
  const plan = event("BroadcastBatchPlanned", { broadcastId, teamId, batch: 0, recipients });
  return { plan, emails: recipients.map((r) => broadcastEmailId(broadcastId, r.contactId)) };
}

const queued = (emailId: string, broadcastId: string | null) => event("EmailQueued", { emailId, teamId, broadcastId });
const sent = (emailId: string) => event("EmailSent", { emailId, sentAt: at });
const delivered = (emailId: string) => event("EmailDelivered", { emailId, deliveredAt: at, ...reply, recipients: ["r@example.test"] });
const delayed = (emailId: string) =>
  event("EmailDeliveryDelayed", { emailId, attempt: 1, nextAttemptAt: at, delayedAt: at, ...reply, recipients: ["r@example.test"] });
const complained = (emailId: string) =>
  event("EmailComplained", { emailId, teamId, recipients: ["r@example.test"], feedbackType: "abuse", reportedBy: null, complainedAt: at });
const failed = (emailId: string) => event("EmailFailed", { emailId, reason: "no", failedAt: at, ...reply, recipients: ["r@example.test"] });

/** Appends each group to a stream of its own, in order, and waits for the projection to hold them all. */
async function project(...groups: [stream: string, events: EventToAppend[]][]): Promise<void> {
  let last: Position | undefined;
  for (const [stream, events] of groups) ({ position: last } = await env.store.append(stream, events, "any"));
  running ??= await env.start([broadcastsProjection]);
  expect(await running.waitFor(last!, 15_000)).toBe(true);
}

const settled = async (broadcastId: string) => {
  const { rows } = await sql<{ settled: string }>`SELECT settled FROM broadcast_settled WHERE broadcast_id = ${broadcastId}`.execute(
    env.database.db,
  );
  return Number(rows[0]?.settled ?? 0);
};
const settledInLedger = async (broadcastId: string) => {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM broadcast_recipients WHERE broadcast_id = ${broadcastId} AND status NOT IN ('planned', 'queued')`.execute(
    env.database.db,
  );
  return Number(rows[0]!.n);
};

describe(`a broadcast's settled recipients (${testMode()})`, () => {
  const [news, promo] = [randomUUID(), randomUUID()];

  it("counts each recipient once, at its first outcome, whatever outcomes follow, as the ledger's statuses do", async () => {
    // given two broadcasts' recipients, queued, and a transactional email of neither
    const a = planned(news, 4);
    const b = planned(promo, 1);
    const transactional = randomUUID();
    const [one, two, three] = a.emails as [string, string, string];
    await project(
      [`broadcast-${news}`, [a.plan]],
      [`broadcast-${promo}`, [b.plan]],
      ...[...a.emails, ...b.emails].map(
        (id) => [`email-${id}`, [queued(id, id === b.emails[0] ? promo : news)]] as [string, EventToAppend[]],
      ),
      [`email-${transactional}`, [queued(transactional, null)]],
    );
    expect(await settled(news)).toBe(0);

    // when outcomes come, some recipients getting several, in one batch and in later ones
    await project(
      [`email-${one}`, [sent(one), delivered(one)]],
      [`email-${two}`, [delayed(two)]],
      [`email-${b.emails[0]}`, [failed(b.emails[0]!)]],
      [`email-${transactional}`, [sent(transactional), delivered(transactional)]],
    );
    await project([`email-${one}`, [complained(one)]], [`email-${two}`, [sent(two), delivered(two)]], [`email-${three}`, [sent(three)]]);

    // then each broadcast counts its settled recipients once each, the fourth still queued
    expect(await settled(news)).toBe(3);
    expect(await settled(promo)).toBe(1);
    expect(await settledInLedger(news)).toBe(3);
  });

  it("counts the same again when rebuilt from the events", async () => {
    await running?.stop();
    running = undefined;
    await rebuildProjection({ store: env.store, database: env.database, projection: broadcastsProjection });
    expect([await settled(news), await settled(promo)]).toEqual([3, 1]);
  });
});
