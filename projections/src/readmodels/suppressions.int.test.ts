import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { EventStore, EventToAppend } from "@tidings/eventstore";
import { testMode } from "@tidings/postgres";
import { createPrivacy, erasedText, subjectTag, type Privacy } from "@tidings/privacy";
import { suppressedRecipients } from "@tidings/sending";
import { rebuildProjection } from "../engine/rebuild.js";
import type { RunningProjections } from "../engine/runner.js";
import { startProjections } from "../engine/runner.js";
import { quietLogger } from "../testing/testBuilders.js";
import { storeOnTestDatabase } from "../testing/storeOnTestDatabase.js";
import { suppressionsProjection } from "./suppressions.js";

/** The suppression list over the sealing store, as `tidings serve` runs it: addresses sealed, their hashes in clear. */
const env = storeOnTestDatabase();
const teamId = randomUUID();
const at = "2026-01-02 03:04:05.000000+00";
let privacy: Privacy;
let store: EventStore;
let running: RunningProjections | undefined;

beforeAll(async () => {
  privacy = await createPrivacy(env.database, "suppressions-test-secret-0123456789");
  store = privacy.sealing(env.store);
});
afterAll(async () => {
  await running?.stop();
});

const event = (type: string, data: Record<string, unknown>): EventToAppend => ({ id: randomUUID(), type, data, metadata: { teamId } });
const bounced = (address: string) =>
  event("EmailBounced", {
    emailId: randomUUID(),
    teamId,
    recipients: [address],
    bounce: { type: "permanent", message: "5.1.1 no such user" },
    bouncedAt: at,
    response: "550 5.1.1 no such user",
    code: 550,
  });
const complained = (address: string) =>
  event("EmailComplained", {
    emailId: randomUUID(),
    teamId,
    recipients: [address],
    feedbackType: "abuse",
    reportedBy: null,
    complainedAt: at,
  });
const added = (address: string) =>
  event("SuppressionAdded", { suppressionId: randomUUID(), teamId, email: address, origin: "manual", sourceId: null, createdAt: at });
const removed = (address: string) => event("SuppressionRemoved", { suppressionId: randomUUID(), teamId, email: address, removedAt: at });

/** Appends each event to a stream of its own, and waits for the list to hold them all. */
async function project(...events: [category: string, event: EventToAppend][]): Promise<void> {
  const appended = [];
  for (const [category, e] of events) appended.push(await store.append(`${category}-${randomUUID()}`, [e], "no_stream"));
  running ??= await startProjections({ store, database: env.database, projections: [suppressionsProjection], logger: quietLogger });
  for (const { position } of appended) expect(await running.waitFor(position, 15_000)).toBe(true);
}

const rowsOf = async (addresses: string[]) => {
  const hashes = addresses.map((a) => privacy.hashSubject(teamId, a));
  const { rows } = await sql<{ email: string; email_hash: string | null; origin: string }>`
    SELECT email, email_hash, origin FROM suppressions WHERE team_id = ${teamId} AND email_hash = ANY(${hashes}::text[])
    ORDER BY origin`.execute(env.database.db);
  return rows;
};

describe(`the suppression list after an erasure (${testMode()})`, () => {
  const [ann, bob, cy] = ["ann.bounced@example.test", "bob.complained@example.test", "cy.manual@example.test"];

  it("keeps each address's keyed hash beside it", async () => {
    await project(["email", bounced(`Ann <${ann.toUpperCase()}>`)], ["email", complained(bob)], ["suppression", added(cy)]);
    expect(await rowsOf([ann, bob, cy])).toEqual([
      { email: ann, email_hash: privacy.hashSubject(teamId, ann), origin: "bounce" },
      { email: bob, email_hash: privacy.hashSubject(teamId, bob), origin: "complaint" },
      { email: cy, email_hash: privacy.hashSubject(teamId, cy), origin: "manual" },
    ]);
  });

  it("rebuilt once the addresses are erased, holds their hashes under placeholders, and mail to them is still refused", async () => {
    for (const address of [ann, bob, cy]) await privacy.keys.eraseSubject(teamId, privacy.hashSubject(teamId, address));
    await running?.stop();
    running = undefined;
    await rebuildProjection({ store, database: env.database, projection: suppressionsProjection });

    const placeholder = (address: string) => erasedText(subjectTag(privacy.hashSubject(teamId, address)));
    expect(await rowsOf([ann, bob, cy])).toEqual([
      { email: placeholder(ann), email_hash: privacy.hashSubject(teamId, ann), origin: "bounce" },
      { email: placeholder(bob), email_hash: privacy.hashSubject(teamId, bob), origin: "complaint" },
      { email: placeholder(cy), email_hash: privacy.hashSubject(teamId, cy), origin: "manual" },
    ]);
    const lookup = suppressedRecipients(env.database, privacy.hashSubject);
    expect(await lookup(teamId, [ann, `Bob <${bob}>`, cy, "dee@example.test"])).toEqual([
      { email: ann, origin: "bounce" },
      { email: bob, origin: "complaint" },
      { email: cy, origin: "manual" },
    ]);
    expect(await lookup(randomUUID(), [ann, bob, cy])).toEqual([]);
  });

  it("takes an erased address off the list when a removal names the address again", async () => {
    await project(["suppression", removed(ann)]);
    expect((await rowsOf([ann, bob])).map((r) => r.origin)).toEqual(["complaint"]);
    expect(await suppressedRecipients(env.database, privacy.hashSubject)(teamId, [ann])).toEqual([]);
  });
});
