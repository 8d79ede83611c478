import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createLogger, formatTimestamp, systemClock } from "@tidings/core";
import { createContact, createSegment, updateContact } from "@tidings/audience";
import { handleCommand } from "@tidings/commands";
import { broadcastDecider, broadcastStream, type BroadcastEvent } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { testStoreDatabase } from "@tidings/eventstore/testing";
import { testMode } from "@tidings/postgres";
import { productProjections } from "@tidings/projections";
import { suppressedRecipients } from "@tidings/sending";
import { heldReadModelsForFile } from "../testing/heldReadModels.js";
import { runBroadcastFanOut, type BroadcastFanOutDeps } from "./fanOut.js";
import { TeamRates } from "./pacing.js";

const teamId = randomUUID();
const metadata = { teamId, actor: "test" };
const deps = () => ({ store, clock: systemClock });
const now = () => formatTimestamp(new Date());

const file = testStoreDatabase();
const readModels = heldReadModelsForFile(file, productProjections);
let store: EventStore;
let fanOut: BroadcastFanOutDeps;

beforeAll(() => {
  store = file.store;
  fanOut = {
    store,
    clock: systemClock,
    database: file.test.database,
    logger: createLogger("silent"),
    links: { publicUrl: "http://tidings.test", secret: "b".repeat(40), mailHost: "tidings.test", validForMs: 3_600_000 },
    suppressed: suppressedRecipients(file.test.database),
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

async function sendBroadcast(segmentId: string): Promise<string> {
  const broadcastId = randomUUID();
  const content = {
    name: "News",
    segmentId,
    from: "Acme <news@acme.test>",
    subject: "News",
    html: "<p>News</p>",
    text: null,
    replyTo: null,
    previewText: null,
    topicId: null,
  };
  const streamId = broadcastStream(broadcastId);
  await handleCommand({
    store,
    streamId,
    decider: broadcastDecider,
    command: { type: "CreateBroadcast", broadcastId, teamId, origin: "api", content, duplicatedFrom: null, now: now() },
    metadata,
  });
  await handleCommand({
    store,
    streamId,
    decider: broadcastDecider,
    command: { type: "SendBroadcast", teamId, scheduledAt: null, domainId: null, now: now() },
    metadata,
  });
  return broadcastId;
}

describe(`broadcast fan-out (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
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
});
