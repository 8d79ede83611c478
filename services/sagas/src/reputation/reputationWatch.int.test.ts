import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, formatTimestamp, systemClock } from "@tidings/core";
import { handleCommand, operationMetadata } from "@tidings/commands";
import { emailStream, reputationDecider, reputationStream, type PauseThresholds } from "@tidings/domain";
import { anEmailContent } from "@tidings/domain/testing";
import type { RecordedEvent } from "@tidings/eventstore";
import { testStoreDatabase } from "@tidings/eventstore/testing";
import { productProjections, startProjections, type RunningProjections } from "@tidings/projections";
import { watchReputation, type ReputationWatchDeps } from "./reputationWatch.js";

const file = testStoreDatabase({ pollIntervalMs: 50 });
let running: RunningProjections;

beforeAll(async () => {
  running = await startProjections({
    store: file.store,
    database: file.test.database,
    projections: productProjections,
    logger: createLogger("silent"),
  });
});
afterAll(async () => {
  await running?.stop();
});

/** Ten emails with an outcome make a sample; a tenth of them bouncing, or complaining, pauses. */
const thresholds: PauseThresholds = { bounceRate: 0.1, complaintRate: 0.1, minSends: 10 };
const deps = (): ReputationWatchDeps => ({
  store: file.store,
  database: file.test.database,
  clock: systemClock,
  // Projections beside a CPU hog: the watcher waits for them as the sagas' checkpoint waiter does, with room.
  readModelsAt: async (_names, position) => {
    if (!(await running.waitFor(position, 60_000))) throw new Error("the read models did not catch up within 60 s");
  },
  thresholds,
  windowHours: 24,
});

type Outcome = "delivered" | "bounced" | "complained";

/** An email of the team (from the domain, when given) and its outcome; the outcome's event as recorded. */
async function anEmail(
  teamId: string,
  domainId: string | null,
  outcome: Outcome,
): Promise<RecordedEvent & { data: { emailId: string; teamId: string } }> {
  const emailId = randomUUID();
  const at = formatTimestamp(new Date());
  const content = anEmailContent({ emailId, teamId, domainId, to: ["ann@example.test"], createdAt: at });
  const event = (type: string, data: unknown) => ({ id: randomUUID(), type, data, metadata: { teamId, actor: "saga:delivery" } });
  const delivered = [
    event("EmailSent", { emailId, sentAt: at }),
    event("EmailDelivered", { emailId, deliveredAt: at, response: "250 ok", code: 250, recipients: content.to }),
  ];
  const outcomes: Record<Outcome, ReturnType<typeof event>[]> = {
    delivered,
    bounced: [
      event("EmailBounced", {
        emailId,
        teamId,
        recipients: content.to,
        bounce: { type: "permanent", message: "550 5.1.1 no such user" },
        bouncedAt: at,
        response: "550 5.1.1 no such user",
        code: 550,
      }),
    ],
    complained: [
      ...delivered,
      event("EmailComplained", { emailId, teamId, recipients: content.to, feedbackType: "abuse", reportedBy: null, complainedAt: at }),
    ],
  };
  await file.store.append(emailStream(emailId), [event("EmailQueued", content), ...outcomes[outcome]], "no_stream");
  const recorded = await file.store.readStream(emailStream(emailId));
  return recorded.at(-1) as RecordedEvent & { data: { emailId: string; teamId: string } };
}

async function emails(teamId: string, domainId: string | null, outcome: Outcome, count: number) {
  for (let i = 0; i < count; i++) await anEmail(teamId, domainId, outcome);
}

const history = async (scopeId: string) =>
  (await file.store.readStream(reputationStream(scopeId))).map((e) => ({ type: e.type, data: e.data, metadata: e.metadata }));

describe("reputation watch", () => {
  it("pauses the team and the domain once the hard-bounce rate reaches the threshold over the minimum sample", async () => {
    const teamId = randomUUID();
    const domainId = randomUUID();
    await emails(teamId, domainId, "delivered", 8);
    // One bounce in nine: over the rate, under the sample.
    await watchReputation(deps(), await anEmail(teamId, domainId, "bounced"));
    expect(await history(teamId)).toEqual([]);
    expect(await history(domainId)).toEqual([]);

    await emails(teamId, domainId, "delivered", 1);
    const bounce = await anEmail(teamId, domainId, "bounced");
    await watchReputation(deps(), bounce);
    const pause = { metric: "bounce", rate: 2 / 11, threshold: 0.1, sends: 11, windowHours: 24 };
    const [team] = await history(teamId);
    expect(team).toMatchObject({
      type: "SendingPaused",
      data: { scope: "team", scopeId: teamId, teamId, domainName: null, ...pause },
      metadata: { actor: "saga:reputation", teamId, causationId: bounce.id },
    });
    const [domain] = await history(domainId);
    expect(domain).toMatchObject({ type: "SendingPaused", data: { scope: "domain", scopeId: domainId, teamId, ...pause } });

    // Noticed again (a redelivered message, the next bounce): still the one pause.
    await watchReputation(deps(), await anEmail(teamId, domainId, "bounced"));
    expect(await history(teamId)).toHaveLength(1);
  });

  it("pauses on the complaint rate, and only the scope over it", async () => {
    const teamId = randomUUID();
    const noisy = randomUUID();
    const quiet = randomUUID();
    await emails(teamId, quiet, "delivered", 30);
    await emails(teamId, noisy, "delivered", 9);
    await watchReputation(deps(), await anEmail(teamId, noisy, "complained"));
    expect(await history(noisy)).toMatchObject([
      { type: "SendingPaused", data: { scope: "domain", metric: "complaint", rate: 0.1, sends: 10 } },
    ]);
    // The team's 40 emails hold one complaint: 2.5 %, under the threshold.
    expect(await history(teamId)).toEqual([]);
    expect(await history(quiet)).toEqual([]);
  });

  it("counts from the lift on: the bounces that paused a team do not pause it again", async () => {
    const teamId = randomUUID();
    await emails(teamId, null, "delivered", 9);
    await watchReputation(deps(), await anEmail(teamId, null, "bounced"));
    expect(await history(teamId)).toMatchObject([{ type: "SendingPaused" }]);

    const { position } = await handleCommand({
      store: file.store,
      streamId: reputationStream(teamId),
      decider: reputationDecider,
      command: { type: "LiftSendingPause", scope: "team", scopeId: teamId, teamId, domainName: null, now: formatTimestamp(new Date()) },
      metadata: operationMetadata("cli", systemClock, { teamId }),
    });
    expect(await running.waitFor(position!, 60_000)).toBe(true);
    // Counted with the old ones, these would make 3 bounces in 12.
    await emails(teamId, null, "delivered", 1);
    await watchReputation(deps(), await anEmail(teamId, null, "bounced"));
    await watchReputation(deps(), await anEmail(teamId, null, "bounced"));
    expect((await history(teamId)).map((e) => e.type)).toEqual(["SendingPaused", "SendingPauseLifted"]);
  });
});
