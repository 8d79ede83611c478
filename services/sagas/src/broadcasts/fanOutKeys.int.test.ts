import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { broadcastEmailId, createLogger, systemClock } from "@tidings/core";
import { createContact, createSegment } from "@tidings/audience";
import { broadcastStream, emailStream, type BroadcastEvent } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { testStoreDatabase, type TestStoreDatabase } from "@tidings/eventstore/testing";
import { testMode } from "@tidings/postgres";
import { productProjections } from "@tidings/projections";
import { createKeyring, createPrivacy, createSealingEventStore, type DataKeys, type Privacy } from "@tidings/privacy";
import { suppressedRecipients } from "@tidings/sending";
import { heldReadModelsForFile } from "../testing/heldReadModels.js";
import { sendTestBroadcast } from "../testing/broadcastFixtures.js";
import { runBroadcastFanOut, type BroadcastFanOutDeps } from "./fanOut.js";
import { TeamRates } from "./pacing.js";

// The fan-out over the sealing store, as in production: the plan's addresses are sealed under each recipient's key.
const secret = "fan-out-keys-test-secret-0123456789";
const teamId = randomUUID();
const metadata = { teamId, actor: "test" };

const file = testStoreDatabase();
let privacy: Privacy;
/** What the test and the read models use; the fan-out has a store of its own, whose key lookups are counted. */
let store: EventStore;
let fanOutStore: EventStore;
/** The ids of each key lookup the fan-out's store made, in order. */
let lookups: string[][] = [];

/** The key table as the fan-out's store asks it, each lookup noted. */
const counted = (keys: DataKeys): DataKeys => ({
  ...keys,
  open: (ids) => {
    if (ids.length > 0) lookups.push(ids);
    return keys.open(ids);
  },
});

beforeAll(async () => {
  privacy = await createPrivacy(file.test.database, secret);
  store = privacy.sealing(file.store);
  fanOutStore = createSealingEventStore(file.store, { keyring: createKeyring(counted(privacy.keys)), hashSubject: privacy.hashSubject });
});
// The read models read the contacts opened, as the projector does.
const sealedFile: TestStoreDatabase = {
  test: file.test,
  get store() {
    return store;
  },
};
const readModels = heldReadModelsForFile(sealedFile, productProjections);

const fanOutDeps = (overrides: Partial<BroadcastFanOutDeps> = {}): BroadcastFanOutDeps => ({
  store: fanOutStore,
  clock: systemClock,
  database: file.test.database,
  logger: createLogger("silent"),
  links: { publicUrl: "http://tidings.test", secret: "b".repeat(40), mailHost: "tidings.test", validForMs: 3_600_000 },
  suppressed: suppressedRecipients(file.test.database, privacy.hashSubject),
  rates: new TeamRates(),
  batchSize: 2,
  emailsInFlight: 100,
  defaultRate: 1_000,
  appendsInFlight: 4,
  readModelsAt: readModels.readModelsAt,
  ...overrides,
});

/** A segment of these addresses' contacts, in the read models; their ids in the order given, which is the plan's. */
async function audience(name: string, emails: string[]) {
  const deps = { store, clock: systemClock, keys: privacy.keys, hashSubject: privacy.hashSubject };
  const segment = await createSegment(deps, teamId, name, metadata);
  const contacts = [];
  for (const [index, email] of emails.entries()) {
    const fields = { firstName: null, lastName: null, unsubscribed: false };
    const contactId = `0000000${index}${randomUUID().slice(8)}`;
    const input = { email, fields, properties: {}, segmentIds: [segment.id], topics: [] };
    contacts.push(await createContact(deps, teamId, input, metadata, contactId));
  }
  expect(await readModels.projections.waitFor(contacts.at(-1)!.position!, 10_000)).toBe(true);
  return { segmentId: segment.id, contacts };
}

const sendBroadcast = (segmentId: string) => sendTestBroadcast(store, { teamId, segmentId, metadata });

describe(`the broadcast fan-out's key lookups (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  it("looks up the plan's keys a batch at a time, as each batch is queued, never the whole audience's at once", async () => {
    const { segmentId, contacts } = await audience(
      "Batched",
      ["one", "two", "three", "four", "five"].map((name) => `${name}-batched@example.test`),
    );
    const broadcastId = await sendBroadcast(segmentId);
    lookups = [];
    await runBroadcastFanOut(fanOutDeps(), broadcastId);

    expect(lookups.map((ids) => ids.length)).toEqual([2, 2, 1]);
    for (const contact of contacts) expect(await store.readStream(emailStream(broadcastEmailId(broadcastId, contact.id!)))).toHaveLength(1);
  });

  it("queues no email to a planned recipient whose key was shredded before their batch was queued, the contact still in the read models", async () => {
    // Two batches of one: the second recipient's address is opened only when the first batch is queued.
    const shredded = "shredded-planned@example.test";
    const { segmentId, contacts } = await audience("Shredded", ["stays-keyed@example.test", shredded]);
    const broadcastId = await sendBroadcast(segmentId);
    // While the first batch is queued (which waits on the team's rate first), the second recipient's key goes:
    // the erasure's first step, before the contact's stream is deleted and the read models hear of it.
    class ShreddingFirst extends TeamRates {
      private shredded = false;
      override async take(team: string, n: number, perSecond: number): Promise<void> {
        if (!this.shredded) {
          this.shredded = true;
          await privacy.keys.eraseSubject(teamId, privacy.hashSubject(teamId, shredded));
        }
        return super.take(team, n, perSecond);
      }
    }
    await runBroadcastFanOut(fanOutDeps({ rates: new ShreddingFirst(), batchSize: 1 }), broadcastId);

    const events = (await store.readStream(broadcastStream(broadcastId))).map((e) => ({ type: e.type, data: e.data }) as BroadcastEvent);
    expect(events.flatMap((e) => (e.type === "BroadcastBatchQueued" ? [e.data.emails] : []))).toEqual([1, 0]);
    expect(await store.readStream(emailStream(broadcastEmailId(broadcastId, contacts[1]!.id!)))).toEqual([]);
    expect(await store.readStream(emailStream(broadcastEmailId(broadcastId, contacts[0]!.id!)))).toHaveLength(1);
  });
});
