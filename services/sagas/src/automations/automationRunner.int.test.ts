import { randomUUID } from "node:crypto";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, formatTimestamp, systemClock } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { automationDecider, automationRunStream, automationStream, contactDecider, contactStream, customEventStream, type AutomationDefinition } from "@tidings/domain";
import { createPostgresEventStore, eventStoreMigrations, type EventStore } from "@tidings/eventstore";
import { holdableStore } from "@tidings/eventstore/testing";
import { createInProcessBus, createNatsBus, startForwarder, type Bus, type Consumer, type Forwarder, type NatsBusOptions } from "@tidings/bus";
import { createTestDatabase, migrate, testMode, type TestDatabase } from "@tidings/postgres";
import { automationsProjection, createCheckpointWaiter, startProjections, type CheckpointWaiter, type RunningProjections } from "@tidings/projections";
import { readModelsAt } from "../readModelsAt.js";
import { createTimers, timerMigrations } from "../timers/index.js";
import { runIdOf, startAutomationRunner } from "./automationRunner.js";
import { automationMigrations } from "./migrations.js";
import { parkedRuns } from "./parkedRuns.js";
import { suppressedRecipients } from "@tidings/sending";

const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const ns = `A${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const natsOptions: NatsBusOptions = { servers: natsUrl, eventsStream: `${ns}_EVENTS`, deadLetterStream: `${ns}_DEADLETTER`, subjectPrefix: `${ns}.` };
const teamId = randomUUID();
const metadata = { teamId, actor: "test" };
const now = () => formatTimestamp(new Date());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`automation runner triggers (${testMode() === "server" ? "PostgreSQL and NATS" : "PGlite and the in-process bus"})`, () => {
  let test: TestDatabase;
  let store: EventStore;
  let bus: Bus;
  let forwarder: Forwarder;
  let projections: RunningProjections;
  let checkpoints: CheckpointWaiter;
  let consumers: Consumer[] = [];
  let holdProjections: () => () => void;
  let releaseHeld: () => void = () => {};

  beforeAll(async () => {
    test = await createTestDatabase();
    await migrate(test.database, "eventstore", eventStoreMigrations);
    await migrate(test.database, "timers", timerMigrations);
    await migrate(test.database, "automations", automationMigrations);
    store = createPostgresEventStore(test.database);
    bus = testMode() === "server" ? await createNatsBus(natsOptions) : await createInProcessBus(test.database);
    forwarder = await startForwarder({ store, bus, database: test.database });
    const projectorFeed = holdableStore(store);
    holdProjections = projectorFeed.hold;
    projections = await startProjections({ store: projectorFeed.store, database: test.database, projections: [automationsProjection], logger: createLogger("silent") });
    checkpoints = await createCheckpointWaiter(test.database, ["automations"]);
    const waitForReadModels = readModelsAt(checkpoints);
    consumers = await startAutomationRunner({
      bus,
      database: test.database,
      // A wait for the read model lets held projections go on: the runner asked for them to catch up.
      readModelsAt: (names, position) => (releaseHeld(), waitForReadModels(names, position)),
      deps: { store, timers: createTimers(test.database), parked: parkedRuns(test.database), clock: systemClock, allowUnverifiedFrom: true, suppressed: suppressedRecipients(test.database), logger: createLogger("silent") },
      concurrency: 4,
    });
  });
  afterAll(async () => {
    releaseHeld();
    await Promise.all(consumers.map((c) => c.stop()));
    await checkpoints?.close();
    await projections?.stop();
    await forwarder?.stop();
    await bus?.close();
    if (testMode() === "server") {
      const nc = await connect({ servers: natsUrl });
      const jsm = await nc.jetstreamManager();
      await jsm.streams.delete(natsOptions.eventsStream!).catch(() => {});
      await jsm.streams.delete(natsOptions.deadLetterStream!).catch(() => {});
      await nc.close();
    }
    await store?.close();
    await test?.dispose();
  });

  const definition = (eventName: string): AutomationDefinition => ({
    name: "Welcome",
    status: "enabled",
    steps: [
      { key: "start", type: "trigger", config: { event_name: eventName } },
      { key: "pause", type: "delay", config: { duration: "1 hour" } },
    ],
    connections: [{ from: "start", to: "pause", type: "default" }],
  });

  it("starts a run for an automation created just before the event, while the automations read model is still behind the creation", async () => {
    const contactId = randomUUID();
    await handleCommand({
      store,
      streamId: contactStream(contactId),
      decider: contactDecider,
      command: { type: "CreateContact", contactId, teamId, email: `${contactId}@example.test`, fields: { firstName: null, lastName: null, unsubscribed: false }, properties: {}, propertyTypes: {}, segmentIds: [], topics: [], now: now() },
      metadata,
    });
    releaseHeld = holdProjections();
    const automationId = randomUUID();
    const eventName = `signed_up_${automationId.slice(0, 8)}`;
    await handleCommand({ store, streamId: automationStream(automationId), decider: automationDecider, command: { type: "CreateAutomation", automationId, teamId, definition: definition(eventName), duplicatedFrom: null, now: now() }, metadata });
    const receivedEventId = randomUUID();
    const received = { receivedEventId, teamId, eventDefId: randomUUID(), name: eventName, contactId, payload: {}, receivedAt: now() };
    await store.append(customEventStream(receivedEventId), [{ id: randomUUID(), type: "CustomEventReceived", data: received, metadata }], "no_stream");

    const run = automationRunStream(runIdOf(automationId, receivedEventId));
    for (const deadline = Date.now() + 10_000; (await store.readStream(run)).length === 0; await sleep(50))
      if (Date.now() > deadline) throw new Error("no run started within 10 s");
    expect((await store.readStream(run))[0]).toMatchObject({ type: "AutomationRunStarted", data: { automationId, trigger: { receivedEventId } } });
  });
});
