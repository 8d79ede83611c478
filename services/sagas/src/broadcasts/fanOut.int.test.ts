import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { broadcastEmailId, createLogger, formatTimestamp, systemClock } from "@tidings/core";
import { createContact, createSegment, eraseContact, updateContact } from "@tidings/audience";
import { broadcastStream, emailStream, type BroadcastEvent } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { testStoreDatabase } from "@tidings/eventstore/testing";
import { testMode } from "@tidings/postgres";
import { productProjections } from "@tidings/projections";
import { createPrivacy, createSubjectHasher, erasedText, subjectTag, type Privacy } from "@tidings/privacy";
import { suppressedRecipients } from "@tidings/sending";
import { expectChain, requestLikeMetadata } from "../testing/expectChain.js";
import { heldReadModelsForFile } from "../testing/heldReadModels.js";
import { sendTestBroadcast } from "../testing/broadcastFixtures.js";
import { runBroadcastFanOut, type BroadcastFanOutDeps } from "./fanOut.js";
import { queueScheduledBroadcast } from "./schedule.js";
import { TeamRates } from "./pacing.js";

const teamId = randomUUID();
const metadata = { teamId, actor: "test" };
const deps = () => ({ store, clock: systemClock, keys: privacy.keys, hashSubject });

const hashSubject = createSubjectHasher("fan-out-test-secret-0123456789");
const file = testStoreDatabase();
const readModels = heldReadModelsForFile(file, productProjections);
let store: EventStore;
let fanOut: BroadcastFanOutDeps;
let privacy: Privacy;

beforeAll(async () => {
  privacy = await createPrivacy(file.test.database, "fan-out-test-secret-0123456789");
  store = file.store;
  fanOut = {
    store,
    clock: systemClock,
    database: file.test.database,
    logger: createLogger("silent"),
    links: { publicUrl: "http://tidings.test", secret: "b".repeat(40), mailHost: "tidings.test", validForMs: 3_600_000 },
    suppressed: suppressedRecipients(file.test.database, hashSubject),
    rates: new TeamRates(),
    batchSize: 100,
    emailsInFlight: 100,
    defaultRate: 1_000,
    appendsInFlight: 4,
    readModelsAt: readModels.readModelsAt,
  };
});

const aContact = (email: string, segmentId: string) =>
  createContact(
    deps(),
    teamId,
    { email, fields: { firstName: null, lastName: null, unsubscribed: false }, properties: {}, segmentIds: [segmentId], topics: [] },
    metadata,
  );

const sendBroadcast = (segmentId: string, sendMetadata: EventMetadata = metadata, scheduledAt: string | null = null) =>
  sendTestBroadcast(store, { teamId, segmentId, metadata, sendMetadata, scheduledAt });

describe(`broadcast fan-out (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  it("runs nothing, and appends nothing, for a broadcast id whose stream holds no BroadcastQueued", async () => {
    const broadcastId = randomUUID();
    await expect(runBroadcastFanOut(fanOut, broadcastId)).resolves.toBeUndefined();
    expect(await store.readStream(broadcastStream(broadcastId))).toEqual([]);
  });

  it("leaves out a contact who unsubscribed just before the broadcast was queued, while the audience read model is still behind", async () => {
    const segment = await createSegment(deps(), teamId, "Everyone", metadata);
    await aContact("stays@example.test", segment.id);
    const leaves = await aContact("leaves@example.test", segment.id);
    expect(await readModels.projections.waitFor(leaves.position!, 10_000)).toBe(true);

    const releaseHeld = readModels.holdProjections();
    try {
      await updateContact(deps(), teamId, leaves.id, { unsubscribed: true }, {}, metadata);
      const broadcastId = await sendBroadcast(segment.id);
      await runBroadcastFanOut(fanOut, broadcastId);
      const events = (await store.readStream(broadcastStream(broadcastId))).map((e) => ({ type: e.type, data: e.data }) as BroadcastEvent);
      const planned = events.flatMap((e) => (e.type === "BroadcastBatchPlanned" ? e.data.recipients.map((r) => r.email) : []));
      expect(planned).toEqual(["stays@example.test"]);
    } finally {
      releaseHeld();
    }
  });

  it("queues no email for a contact erased after the plan named them, and counts the batch's emails without it", async () => {
    const segment = await createSegment(deps(), teamId, "Erased", metadata);
    const [stays, goes] = [await aContact("stays-planned@example.test", segment.id), await aContact("goes@example.test", segment.id)];
    expect(await readModels.projections.waitFor(goes.position!, 10_000)).toBe(true);
    const broadcastId = await sendBroadcast(segment.id);
    // Between the plan and the queueing of its batch (which waits on the team's rate first), the contact is erased.
    class ErasingFirst extends TeamRates {
      private erased = false;
      override async take(team: string, n: number, perSecond: number): Promise<void> {
        if (!this.erased) {
          this.erased = true;
          const { position } = await eraseContact(deps(), teamId, goes.id, metadata);
          expect(await readModels.projections.waitFor(position!, 10_000)).toBe(true);
        }
        return super.take(team, n, perSecond);
      }
    }
    await runBroadcastFanOut({ ...fanOut, rates: new ErasingFirst() }, broadcastId);

    const events = (await store.readStream(broadcastStream(broadcastId))).map((e) => ({ type: e.type, data: e.data }) as BroadcastEvent);
    const planned = events.flatMap((e) => (e.type === "BroadcastBatchPlanned" ? e.data.recipients.map((r) => r.email) : []));
    expect(planned.sort()).toEqual(["goes@example.test", "stays-planned@example.test"]);
    expect(events.flatMap((e) => (e.type === "BroadcastBatchQueued" ? [e.data.emails] : []))).toEqual([1]);
    expect(await store.readStream(emailStream(broadcastEmailId(broadcastId, goes.id)))).toEqual([]);
    expect(await store.readStream(emailStream(broadcastEmailId(broadcastId, stays.id)))).toHaveLength(1);
  });

  it("leaves out a contact whose address is listed only by keyed hash, having been erased while suppressed", async () => {
    const segment = await createSegment(deps(), teamId, "Came back", metadata);
    const stays = await aContact("stays-listed@example.test", segment.id);
    const back = await aContact("came-back@example.test", segment.id);
    expect(await readModels.projections.waitFor(back.position!, 10_000)).toBe(true);
    // The list's row as an erasure leaves it: a placeholder for the address, and the address's hash.
    const hash = hashSubject(teamId, "came-back@example.test");
    await sql`INSERT INTO suppressions (team_id, email, email_hash, id, origin, source_id, created_at)
      VALUES (${teamId}, ${erasedText(subjectTag(hash))}, ${hash}, ${randomUUID()}, 'bounce', NULL, now())`.execute(file.test.database.db);

    const broadcastId = await sendBroadcast(segment.id);
    await runBroadcastFanOut(fanOut, broadcastId);
    const events = (await store.readStream(broadcastStream(broadcastId))).map((e) => ({ type: e.type, data: e.data }) as BroadcastEvent);
    const planned = events.flatMap((e) => (e.type === "BroadcastBatchPlanned" ? e.data.recipients.map((r) => r.email) : []));
    expect(planned).toEqual(["stays-listed@example.test"]);
    expect(await store.readStream(emailStream(broadcastEmailId(broadcastId, back.id)))).toEqual([]);
    expect(await store.readStream(emailStream(broadcastEmailId(broadcastId, stays.id)))).toHaveLength(1);
  });

  it("appends the broadcast's events and queues its emails in the chain of the request that queued it", async () => {
    const segment = await createSegment(deps(), teamId, "Chained", metadata);
    const contacts = [await aContact("one@example.test", segment.id), await aContact("two@example.test", segment.id)];
    expect(await readModels.projections.waitFor(contacts[1]!.position!, 10_000)).toBe(true);
    const requestId = randomUUID();
    const broadcastId = await sendBroadcast(segment.id, requestLikeMetadata(teamId, requestId));
    await runBroadcastFanOut(fanOut, broadcastId);

    const [, queued, ...ran] = await store.readStream(broadcastStream(broadcastId));
    expect(ran.map((e) => e.type)).toEqual(["BroadcastBatchPlanned", "BroadcastSendingStarted", "BroadcastBatchQueued", "BroadcastSent"]);
    const chain = { actor: "saga:broadcast-fan-out", teamId, correlationId: requestId };
    expectChain(ran, { ...chain, causes: ran.map(() => queued!.id) });
    const emails = await Promise.all(
      contacts.map(async (c) => (await store.readStream(emailStream(broadcastEmailId(broadcastId, c.id))))[0]!),
    );
    // Each email is caused by the plan of its batch, and goes in the bulk lane.
    expectChain(emails, { ...chain, causes: emails.map(() => ran[0]!.id), lane: "bulk" });
  });

  it("queues a scheduled broadcast when its timer fires in the chain of the request that scheduled it", async () => {
    const segment = await createSegment(deps(), teamId, "Later", metadata);
    const requestId = randomUUID();
    const inAnHour = formatTimestamp(new Date(Date.now() + 3_600_000));
    const broadcastId = await sendBroadcast(segment.id, requestLikeMetadata(teamId, requestId), inAnHour);
    await queueScheduledBroadcast(store, systemClock, broadcastId);
    const [, scheduled, queued] = await store.readStream(broadcastStream(broadcastId));
    expect([scheduled!.type, queued!.type]).toEqual(["BroadcastScheduled", "BroadcastQueued"]);
    expectChain([queued!], { actor: "saga:broadcast-scheduler", teamId, correlationId: requestId, causes: [scheduled!.id] });
  });
});
