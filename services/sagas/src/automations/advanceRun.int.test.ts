import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, formatTimestamp } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import {
  automationDecider,
  automationRunStream,
  automationStream,
  contactStream,
  emailStream,
  reputationDecider,
  reputationStream,
  templateDecider,
  templateStream,
  type AutomationDefinition,
} from "@tidings/domain";
import { createPostgresEventStore, eventStoreMigrations, type EventStore } from "@tidings/eventstore";
import { createTestDatabase, migrate, testMode, type TestDatabase } from "@tidings/postgres";
import { sendingPausesProjection, startProjections } from "@tidings/projections";
import { createRunContact, runnerDeps } from "../testing/automationFixtures.js";
import { requestLikeMetadata } from "../testing/expectChain.js";
import { timerMigrations } from "../timers/index.js";
import { advanceRun, type RunnerDeps } from "./advanceRun.js";
import { fireRunTimer } from "./automationRunner.js";
import { automationMigrations } from "./migrations.js";
import { decideRun, runTimerKey } from "./runCommands.js";
import { stepEmailId } from "./sendStepEmail.js";

const teamId = randomUUID();
const now = () => formatTimestamp(new Date());
const metadata = { teamId, actor: "test" };

/** The runner's promise: however often and however concurrently a run is advanced, each step happens once. */
describe(`automation runner (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  let test: TestDatabase;
  let store: EventStore;
  let deps: RunnerDeps;
  const automationId = randomUUID();
  const contactId = randomUUID();
  const templateId = randomUUID();

  beforeAll(async () => {
    test = await createTestDatabase();
    await migrate(test.database, "eventstore", eventStoreMigrations);
    await migrate(test.database, "timers", timerMigrations);
    await migrate(test.database, "automations", automationMigrations);
    store = createPostgresEventStore(test.database);
    deps = runnerDeps(test.database, store);
    const content = {
      name: "Hi",
      alias: null,
      subject: "Hi {{{NAME}}}",
      html: "<p>Hi {{{NAME}}}</p>",
      text: null,
      from: "Acme <a@acme.test>",
      replyTo: null,
      variables: [],
    };
    await handleCommand({
      store,
      streamId: templateStream(templateId),
      decider: templateDecider,
      command: { type: "CreateTemplate", templateId, teamId, versionId: randomUUID(), content, duplicatedFrom: null, now: now() },
      metadata,
    });
    await handleCommand({
      store,
      streamId: templateStream(templateId),
      decider: templateDecider,
      command: { type: "PublishTemplate", teamId, now: now() },
      metadata,
    });
    await createRunContact(store, { contactId, teamId, email: "ada@example.test", firstName: "Ada" }, metadata);
  });
  afterAll(() => test?.dispose());

  const definition = (): AutomationDefinition => ({
    name: "Once",
    status: "enabled",
    steps: [
      { key: "start", type: "trigger", config: { event_name: "user.signed_up" } },
      { key: "hello", type: "send_email", config: { template: { id: templateId, variables: { NAME: { var: "contact.first_name" } } } } },
      { key: "rename", type: "contact_update", config: { last_name: { var: "payload.last" } } },
      { key: "pause", type: "delay", config: { duration: "1 hour" } },
      { key: "bye", type: "send_email", config: { template: { id: templateId, variables: { NAME: "friend" } }, subject: "Bye" } },
    ],
    connections: [
      { from: "start", to: "hello", type: "default" },
      { from: "hello", to: "rename", type: "default" },
      { from: "rename", to: "pause", type: "default" },
      { from: "pause", to: "bye", type: "default" },
    ],
  });

  it("runs each step once when advanced five times at once, then once more on each timer firing", async () => {
    await handleCommand({
      store,
      streamId: automationStream(automationId),
      decider: automationDecider,
      command: { type: "CreateAutomation", automationId, teamId, definition: definition(), duplicatedFrom: null, now: now() },
      metadata,
    });
    const runId = randomUUID();
    const trigger = { receivedEventId: randomUUID(), name: "user.signed_up", contactId, payload: { last: "Lovelace" } };
    // Started as the runner starts it: in the chain of the request that sent the event, caused by the event.
    const requestId = randomUUID();
    const receivedEvent = randomUUID();
    await decideRun(
      store,
      runId,
      { type: "StartRun", runId, automationId, teamId, version: 1, graph: definition(), trigger, now: now() },
      { ...requestLikeMetadata(teamId, requestId), actor: "saga:automations", causationId: receivedEvent },
    );

    await Promise.all(Array.from({ length: 5 }, () => advanceRun(deps, runId)));
    const hello = await store.readStream(emailStream(stepEmailId(runId, "hello")));
    expect(hello.map((e) => e.type)).toEqual(["EmailQueued"]);
    expect(hello[0]!.data).toMatchObject({ to: ["ada@example.test"], subject: "Hi Ada" });
    const contactUpdates = (await store.readStream(contactStream(contactId))).filter((e) => e.type === "ContactUpdated");
    expect(contactUpdates.map((e) => (e.data as { lastName: string }).lastName)).toEqual(["Lovelace"]);
    const completed = async () =>
      (await store.readStream(automationRunStream(runId)))
        .filter((e) => e.type === "AutomationRunStepCompleted")
        .map((e) => (e.data as { key: string }).key);
    expect(await completed()).toEqual(["start", "hello", "rename"]);
    const { rows: timers } = await sql<{ key: string }>`SELECT key FROM due_timers`.execute(test.database.db);
    expect(timers.map((t) => t.key)).toEqual([runTimerKey(runId, "pause")]);
    expect(await deps.parked.ofAutomation(automationId)).toEqual([runId]);

    await Promise.all([
      fireRunTimer(deps, { kind: "automation-step", runId, stepKey: "pause" }),
      fireRunTimer(deps, { kind: "automation-step", runId, stepKey: "pause" }),
    ]);
    expect(await completed()).toEqual(["start", "hello", "rename", "pause", "bye"]);
    expect((await store.readStream(emailStream(stepEmailId(runId, "bye")))).map((e) => e.type)).toEqual(["EmailQueued"]);
    const ended = (await store.readStream(automationRunStream(runId))).filter((e) => e.type === "AutomationRunEnded");
    expect(ended.map((e) => (e.data as { status: string }).status)).toEqual(["completed"]);
    expect(await deps.parked.ofAutomation(automationId)).toEqual([]);
    expect((await sql<{ key: string }>`SELECT key FROM due_timers`.execute(test.database.db)).rows).toEqual([]);

    // Every step, timed or not, and what the steps wrote, stay in that chain, each caused by a run event before it.
    const run = await store.readStream(automationRunStream(runId));
    const effects = [
      ...(await store.readStream(emailStream(stepEmailId(runId, "hello")))),
      ...(await store.readStream(emailStream(stepEmailId(runId, "bye")))),
      ...contactUpdates,
    ];
    // The start and the trigger step's completion are one decision, both caused by the received event.
    const earlierRunEvents = (at: number) => new Set([receivedEvent, ...run.slice(0, at).map((e) => e.id)]);
    for (const event of run)
      expect(event.metadata).toMatchObject({ teamId, actor: "saga:automations", correlationId: requestId, occurredAt: expect.any(String) });
    for (const [i, event] of run.entries()) expect(earlierRunEvents(i).has(event.metadata.causationId!)).toBe(true);
    for (const effect of effects) {
      expect(effect.metadata).toMatchObject({ teamId, actor: "saga:automations", correlationId: requestId });
      expect(earlierRunEvents(run.length).has(effect.metadata.causationId!)).toBe(true);
    }
  });

  /** Starts a run of `graph` and advances it: its send step `hello` fails, and the run with it. */
  async function runFailingAtHello(graph: AutomationDefinition) {
    const runId = randomUUID();
    const trigger = { receivedEventId: randomUUID(), name: "user.signed_up", contactId, payload: {} };
    await decideRun(store, runId, { type: "StartRun", runId, automationId, teamId, version: 1, graph, trigger, now: now() }, metadata);
    await advanceRun(deps, runId);
    const events = await store.readStream(automationRunStream(runId));
    expect(events.map((e) => e.type)).toEqual([
      "AutomationRunStarted",
      "AutomationRunStepCompleted",
      "AutomationRunStepFailed",
      "AutomationRunEnded",
    ]);
    expect(events[3]!.data).toMatchObject({ status: "failed", skipped: ["rename", "pause", "bye"] });
    return { runId, failed: events[2]!.data };
  }

  it("fails the step, and the run, when its template is gone", async () => {
    const gone = randomUUID();
    const graph = {
      ...definition(),
      steps: definition().steps.map((s) => (s.key === "hello" ? { ...s, config: { template: { id: gone } } } : s)),
    };
    const { failed } = await runFailingAtHello(graph);
    expect(failed).toMatchObject({ key: "hello", error: `Template \`${gone}\` not found.` });
  });

  it("fails the send step, and the run, with the refusal a send gets while the team is paused", async () => {
    const projections = await startProjections({
      store,
      database: test.database,
      projections: [sendingPausesProjection],
      logger: createLogger("silent"),
    });
    try {
      const pause = { scope: "team" as const, scopeId: teamId, teamId, domainName: null };
      const { position } = await handleCommand({
        store,
        streamId: reputationStream(teamId),
        decider: reputationDecider,
        command: { type: "PauseSending", ...pause, metric: "bounce", rate: 0.2, threshold: 0.1, sends: 100, windowHours: 24, now: now() },
        metadata: { ...metadata, actor: "saga:reputation" },
      });
      expect(await projections.waitFor(position!, 60_000)).toBe(true);
      // The runner reads the pauses at most once a second: until then it may still see none.
      const giveUpAt = Date.now() + 60_000;
      while (!(await deps.paused(teamId, null)) && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 200));

      const { runId, failed } = await runFailingAtHello(definition());
      expect(failed).toMatchObject({
        key: "hello",
        error: expect.stringMatching(`^Sending from team ${teamId} is paused: bounce rate 20\\.0%`),
      });
      expect(await store.readStream(emailStream(stepEmailId(runId, "hello")))).toEqual([]);
    } finally {
      await projections.stop();
    }
  });
});
