import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock, createLogger, createSealer, deterministicId, formatTimestamp } from "@tidings/core";
import {
  WEBHOOK_SECRET_SEAL_PURPOSE,
  emailStream,
  fold,
  webhookDecider,
  webhookDeliveryDecider,
  webhookDeliveryStream,
  webhookStream,
  type LiveWebhookDelivery,
  type WebhookDeliveryEvent,
} from "@tidings/domain";
import { anEmailContent } from "@tidings/domain/testing";
import type { EventStore } from "@tidings/eventstore";
import { refusingAppends } from "@tidings/eventstore/testing";
import { forwardedEventSubject, toForwardedEvent, type Bus } from "@tidings/bus";
import { handleCommand } from "@tidings/commands";
import { testMode, type TestDatabase } from "@tidings/postgres";
import { webhookDeliveriesProjection, webhooksProjection, type RunningProjections } from "@tidings/projections";
import { expectChain, requestLikeMetadata } from "../testing/expectChain.js";
import { sagaPipelineForFile } from "../testing/sagaPipeline.js";
import { createTimers, startTimerPoller, type TimerPoller } from "../timers/index.js";
import { attemptDelivery, type AttemptDeps, type DeliveryTimerPayload, type KnownDelivery } from "./attemptDelivery.js";
import { createAttemptLeases } from "./attemptLeases.js";
import { createWebhookTargets } from "./webhookTargets.js";
import { startWebhookSaga, type WebhookSaga } from "./webhookSaga.js";

const logger = createLogger("silent");
const secret = "w".repeat(40);
const teamId = randomUUID();

describe(`webhook saga (${testMode() === "server" ? "PostgreSQL and NATS" : "PGlite and the in-process bus"}) into a loopback HTTP receiver`, () => {
  const pipeline = sagaPipelineForFile({ projections: [webhooksProjection, webhookDeliveriesProjection] });
  let test: TestDatabase;
  let store: EventStore;
  let bus: Bus;
  let projections: RunningProjections;
  let saga: WebhookSaga;
  let poller: TimerPoller;
  let receiver: Server;
  const received: { id: string; body: string }[] = [];
  let webhookId: string;
  let port: number;
  let timers: ReturnType<typeof createTimers>;
  let holding = true;
  const startSaga = () =>
    startWebhookSaga({
      bus,
      store,
      clock: systemClock,
      database: test.database,
      timers,
      logger,
      secret,
      allowPrivate: true,
      scheduleMs: [0, 100],
      messageIdHost: "tidings.test",
      sweepIntervalMs: 200,
      staleMs: 500,
      readModelsAt: pipeline.readModels.readModelsAt,
    });

  const waitForRequests = async (count: number) => {
    for (const deadline = Date.now() + 10_000; received.length < count; await sleep(25))
      if (Date.now() > deadline) throw new Error(`${received.length} requests, expected ${count}`);
  };
  const waitForRequest = async (id: string) => {
    for (const deadline = Date.now() + 10_000; !received.some((r) => r.id === id); await sleep(25))
      if (Date.now() > deadline) throw new Error(`no request ${id} within 10 s`);
  };
  /** The request whose chain the test's emails and left-behind deliveries are in. */
  const requestId = randomUUID();
  const suppressedEmail = async () => {
    const emailId = randomUUID();
    const now = formatTimestamp(new Date());
    const content = anEmailContent({ emailId, teamId, from: "a@acme.test", to: ["b@example.test"], subject: "Hi", createdAt: now });
    await store.append(
      emailStream(emailId),
      [
        { id: randomUUID(), type: "EmailQueued", data: content, metadata: requestLikeMetadata(teamId, requestId) },
        {
          id: randomUUID(),
          type: "EmailSuppressed",
          data: { emailId, recipients: ["b@example.test"], suppressedAt: now },
          metadata: requestLikeMetadata(teamId, requestId),
        },
      ],
      "no_stream",
    );
    return emailId;
  };

  const createWebhook = async (path: string, { projected = true } = {}) => {
    const id = randomUUID();
    const created = await handleCommand({
      store,
      streamId: webhookStream(id),
      decider: webhookDecider,
      command: {
        type: "CreateWebhook",
        webhookId: id,
        teamId,
        endpoint: `http://127.0.0.1:${port}${path}`,
        events: ["email.suppressed"],
        sealedSecret: createSealer(secret, WEBHOOK_SECRET_SEAL_PURPOSE).seal(`whsec_${Buffer.from("k".repeat(32)).toString("base64")}`),
        allowHttp: true,
        now: formatTimestamp(new Date()),
      },
      metadata: { teamId },
    });
    if (projected) await projections.waitFor(created.position!, 10_000);
    return id;
  };
  /** What a fan-out leaves when its process dies right after the append: a delivery, and nothing in hand. */
  const leftBehindDelivery = async (toWebhook: string) => {
    const deliveryId = randomUUID();
    const payload = { type: "email.suppressed", created_at: new Date().toISOString(), data: { email_id: "left-behind" } };
    await store.append(
      webhookDeliveryStream(deliveryId),
      [
        {
          id: randomUUID(),
          type: "WebhookDeliveryCreated",
          data: {
            deliveryId,
            webhookId: toWebhook,
            teamId,
            eventId: randomUUID(),
            eventType: payload.type,
            payload,
            createdAt: formatTimestamp(new Date()),
          },
          metadata: { teamId, actor: "saga:webhooks", correlationId: requestId, causationId: randomUUID() },
        },
      ],
      "no_stream",
    );
    return { deliveryId, payload };
  };

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({ id: req.headers["webhook-id"] as string, body: Buffer.concat(chunks).toString() });
        // `/slow` keeps an attempt in flight across several sweeps; `/hold`, while `holding`, longer than an attempt may wait.
        setTimeout(() => res.writeHead(200).end("ok"), req.url === "/slow" ? 2_500 : req.url === "/hold" && holding ? 60_000 : 0);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    port = (receiver.address() as { port: number }).port;
    ({ test, store, bus } = pipeline);
    projections = pipeline.readModels.projections;
    webhookId = await createWebhook("/in");
    timers = createTimers(test.database);
    saga = await startSaga();
    poller = startTimerPoller({
      database: test.database,
      logger,
      intervalMs: 50,
      fire: (timer) => saga.fire(timer.payload as DeliveryTimerPayload),
    });
  });
  afterAll(async () => {
    await poller?.stop();
    await saga?.stop();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("delivers an event redelivered by the bus once: one delivery stream, one request", async () => {
    const before = received.length;
    const emailId = await suppressedEmail();
    await waitForRequests(before + 1);
    const [, suppressed] = await store.readStream(emailStream(emailId));
    await bus.publish(forwardedEventSubject(suppressed!), toForwardedEvent(suppressed!), { msgId: randomUUID() });
    await sleep(800);
    expect(received.slice(before).map((r) => r.id)).toEqual([`msg_${deterministicId("webhook-delivery", webhookId, suppressed!.id)}`]);
    // The endpoint answers before the attempt is recorded: on a busy machine the record comes later.
    const delivery = () => store.readStream(webhookDeliveryStream(deterministicId("webhook-delivery", webhookId, suppressed!.id)));
    for (const deadline = Date.now() + 10_000; (await delivery()).length < 2 && Date.now() < deadline;) await sleep(25);
    const [created, attempted] = await delivery();
    expect([created, attempted].map((e) => e?.type)).toEqual(["WebhookDeliveryCreated", "WebhookDeliveryAttempted"]);
    // In the chain of the email's request: made because of the email's event, attempted because it was made.
    expectChain([created!, attempted!], {
      actor: "saga:webhooks",
      teamId,
      correlationId: requestId,
      causes: [suppressed!.id, created!.id],
    });
  });

  it("delivers an event to a webhook created just before it, while the webhooks read model is still behind the creation", async () => {
    const releaseHeld = pipeline.readModels.holdProjections();
    try {
      const fresh = await createWebhook("/fresh", { projected: false });
      const emailId = await suppressedEmail();
      const [, suppressed] = await store.readStream(emailStream(emailId));
      // The older webhook's copy too, so that it does not land among the next test's requests.
      for (const hook of [fresh, webhookId]) await waitForRequest(`msg_${deterministicId("webhook-delivery", hook, suppressed!.id)}`);
    } finally {
      releaseHeld();
    }
  });

  /** An attempt's dependencies as a second process would have them, beside the running saga. */
  const secondProcessDeps = (overrides: Partial<AttemptDeps>): AttemptDeps => ({
    store,
    clock: systemClock,
    timers,
    logger,
    sealer: createSealer(secret, WEBHOOK_SECRET_SEAL_PURPOSE),
    allowPrivate: true,
    scheduleMs: [0, 100],
    leases: createAttemptLeases(test.database),
    knownForMs: 250,
    targetForMs: 250,
    targets: createWebhookTargets(store, 250),
    ...overrides,
  });
  /** One attempt recorded, and, with time for a second to arrive, one request among those after `before`. */
  const expectPostedOnce = async (deliveryId: string, before: number) => {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(50))
      if ((await store.readStream(webhookDeliveryStream(deliveryId))).length >= 2) break;
    await sleep(800);
    expect(received.slice(before).map((r) => r.id)).toEqual([`msg_${deliveryId}`]);
    expect((await store.readStream(webhookDeliveryStream(deliveryId))).map((e) => e.type)).toEqual([
      "WebhookDeliveryCreated",
      "WebhookDeliveryAttempted",
    ]);
  };

  it("keeps trying to record an attempt the endpoint took while the store refuses it, instead of posting it again", async () => {
    // Three refused appends stand in for the database restarting right after the endpoint's 200.
    const away = refusingAppends(store, 3);
    // Claimed at once, the delivery is out of the running saga's sweeps.
    const deps = secondProcessDeps({ store: away.store });
    const before = received.length;
    const { deliveryId } = await leftBehindDelivery(webhookId);
    await attemptDelivery(deps, deliveryId, webhookId);
    expect(away.attempts).toBeGreaterThan(3);
    expect((await store.readStream(webhookDeliveryStream(deliveryId))).map((e) => e.type)).toEqual([
      "WebhookDeliveryCreated",
      "WebhookDeliveryAttempted",
    ]);
    await sleep(800);
    expect(received.slice(before).map((r) => r.id)).toEqual([`msg_${deliveryId}`]);
  });

  it("does not post an attempt whose lease may have run out before the POST: the process that took the delivery meanwhile posts it, once", async () => {
    // What the reads after the claim found arrives 1.5 s later, past the 1 s lease: meanwhile the running
    // saga's sweep (stale after 500 ms) hands the delivery to a timer, whose claim finds the lease expired
    // and posts it.
    const slowReads: EventStore = {
      ...store,
      readStream: async (...args) => {
        const events = await store.readStream(...args);
        await sleep(1_500);
        return events;
      },
    };
    const deps = secondProcessDeps({ store: slowReads, leases: createAttemptLeases(test.database, { leaseMs: 1_000 }) });
    const before = received.length;
    const { deliveryId } = await leftBehindDelivery(webhookId);
    await attemptDelivery(deps, deliveryId, webhookId);
    await expectPostedOnce(deliveryId, before);
  });

  it("does not post a delivery its creator knew once that knowledge is older than knownForMs: a sweep may have handed it out", async () => {
    // Its webhook's lookup answers in 1 s, past knownForMs (250 ms) and the running saga's staleMs (500 ms).
    const slowTargets = createWebhookTargets(store, 0);
    const deps = secondProcessDeps({
      targetForMs: 0,
      targets: {
        ...slowTargets,
        get: async (id) => {
          await sleep(1_000);
          return slowTargets.get(id);
        },
      },
    });
    const before = received.length;
    const { deliveryId } = await leftBehindDelivery(webhookId);
    const recorded = await store.readStream(webhookDeliveryStream(deliveryId));
    const state = fold(
      webhookDeliveryDecider,
      recorded.map((e) => ({ type: e.type, data: e.data }) as WebhookDeliveryEvent),
    ) as LiveWebhookDelivery;
    const known: KnownDelivery = {
      at: Date.now(),
      state,
      revision: recorded[0]!.revision,
      target: (await slowTargets.get(webhookId))!,
      chain: { correlationId: requestId, causationId: recorded[0]!.id },
    };
    await attemptDelivery(deps, deliveryId, webhookId, { known });
    await expectPostedOnce(deliveryId, before);
  });

  it("takes up, through a sweep, a delivery whose process died before its first attempt", async () => {
    const before = received.length;
    const { deliveryId, payload } = await leftBehindDelivery(webhookId);
    await waitForRequests(before + 1);
    expect(JSON.parse(received[before]!.body)).toEqual(payload);
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(50))
      if ((await store.readStream(webhookDeliveryStream(deliveryId))).length === 2) break;
    const [created, attempted] = await store.readStream(webhookDeliveryStream(deliveryId));
    expect([created, attempted].map((e) => e?.type)).toEqual(["WebhookDeliveryCreated", "WebhookDeliveryAttempted"]);
    // Read back from its stream, the delivery's chain goes on: the attempt is caused by the creation.
    expectChain([attempted!], { actor: "saga:webhooks", teamId, correlationId: requestId, causes: [created!.id] });
  });

  it("makes a left-behind delivery once when two saga processes sweep: the attempt is claimed, not only the timer", async () => {
    const slowWebhook = await createWebhook("/slow");
    // A second process on the same stores, sweeping as often: each sweep sees the delivery still pending
    // while the first process's attempt waits on the slow endpoint.
    const second = await startSaga();
    const secondPoller = startTimerPoller({
      database: test.database,
      logger,
      intervalMs: 50,
      fire: (timer) => second.fire(timer.payload as DeliveryTimerPayload),
    });
    try {
      const before = received.length;
      const { deliveryId } = await leftBehindDelivery(slowWebhook);
      await waitForRequests(before + 1);
      await sleep(3_500);
      expect(received.slice(before).map((r) => r.id)).toEqual([`msg_${deliveryId}`]);
      expect((await store.readStream(webhookDeliveryStream(deliveryId))).map((e) => e.type)).toEqual([
        "WebhookDeliveryCreated",
        "WebhookDeliveryAttempted",
      ]);
    } finally {
      await secondPoller.stop();
      await second.stop();
    }
  });

  it("cuts an attempt still waiting on its endpoint when stopped: nothing is recorded, and the next process attempts it at once", async () => {
    const holdWebhook = await createWebhook("/hold");
    const before = received.length;
    const { deliveryId } = await leftBehindDelivery(holdWebhook);
    await waitForRequests(before + 1);
    await saga.stop();
    expect((await store.readStream(webhookDeliveryStream(deliveryId))).map((e) => e.type)).toEqual(["WebhookDeliveryCreated"]);

    holding = false;
    saga = await startSaga();
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(50))
      if ((await store.readStream(webhookDeliveryStream(deliveryId))).length === 2) break;
    const recorded = await store.readStream(webhookDeliveryStream(deliveryId));
    expect(recorded.map((e) => e.type)).toEqual(["WebhookDeliveryCreated", "WebhookDeliveryAttempted"]);
    expect(recorded[1]!.data).toMatchObject({ attempt: 1, succeeded: true });
    expect(received.slice(before).map((r) => r.id)).toEqual([`msg_${deliveryId}`, `msg_${deliveryId}`]);
  });
});
