import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatTimestamp } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { automationDecider, automationRunStream, automationStream, customEventStream, type AutomationDefinition } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import type { Consumer } from "@tidings/bus";
import { testMode } from "@tidings/postgres";
import { automationsProjection } from "@tidings/projections";
import { sagaPipelineForFile } from "../testing/sagaPipeline.js";
import { createRunContact, runnerDeps } from "../testing/automationFixtures.js";
import { expectChain, requestLikeMetadata } from "../testing/expectChain.js";
import { runIdOf, startAutomationRunner } from "./automationRunner.js";
import { automationMigrations } from "./migrations.js";

const teamId = randomUUID();
const metadata = { teamId, actor: "test" };
const now = () => formatTimestamp(new Date());

describe(`automation runner triggers (${testMode() === "server" ? "PostgreSQL and NATS" : "PGlite and the in-process bus"})`, () => {
  const pipeline = sagaPipelineForFile({ migrations: { automations: automationMigrations }, projections: [automationsProjection] });
  let store: EventStore;
  let consumers: Consumer[] = [];

  beforeAll(async () => {
    const { test, bus, readModels } = pipeline;
    store = pipeline.store;
    consumers = await startAutomationRunner({
      bus,
      database: test.database,
      readModelsAt: readModels.readModelsAt,
      deps: runnerDeps(test.database, store),
      concurrency: 4,
    });
  });
  afterAll(() => Promise.all(consumers.map((c) => c.stop())));

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
    await createRunContact(store, { contactId, teamId, email: `${contactId}@example.test`, firstName: null }, metadata);
    pipeline.readModels.holdProjections();
    const automationId = randomUUID();
    const eventName = `signed_up_${automationId.slice(0, 8)}`;
    await handleCommand({
      store,
      streamId: automationStream(automationId),
      decider: automationDecider,
      command: { type: "CreateAutomation", automationId, teamId, definition: definition(eventName), duplicatedFrom: null, now: now() },
      metadata,
    });
    const receivedEventId = randomUUID();
    const received = { receivedEventId, teamId, eventDefId: randomUUID(), name: eventName, contactId, payload: {}, receivedAt: now() };
    const requestId = randomUUID();
    const storedEventId = randomUUID();
    await store.append(
      customEventStream(receivedEventId),
      [{ id: storedEventId, type: "CustomEventReceived", data: received, metadata: requestLikeMetadata(teamId, requestId) }],
      "no_stream",
    );

    const run = automationRunStream(runIdOf(automationId, receivedEventId));
    for (const deadline = Date.now() + 10_000; (await store.readStream(run)).length === 0; await sleep(50))
      if (Date.now() > deadline) throw new Error("no run started within 10 s");
    expect((await store.readStream(run))[0]).toMatchObject({
      type: "AutomationRunStarted",
      data: { automationId, trigger: { receivedEventId } },
    });
    // The run is in the chain of the request that sent the event, caused by the event.
    const [started] = await store.readStream(run);
    expectChain([started!], { actor: "saga:automations", teamId, correlationId: requestId, causes: [storedEventId] });
  });
});
