import { describe, expect, it } from "vitest";
import { given, now, otherTeam, teamId } from "../testing/scenario.js";
import { reputationDecider, sendingPausedMessage } from "./decider.js";
import type { ReputationEvent, SendingPause } from "./events.js";
import { pauseVerdict } from "./rates.js";

const domainId = "00000000-0000-4000-8000-00000000d0d0";
const pause: SendingPause = {
  scope: "domain",
  scopeId: domainId,
  teamId,
  domainName: "example.com",
  metric: "bounce",
  rate: 0.12,
  threshold: 0.1,
  sends: 250,
  windowHours: 24,
  pausedAt: now,
};
const { pausedAt: _, ...pauseFacts } = pause;
const pauseCommand = { type: "PauseSending" as const, ...pauseFacts, now };
const lift = { type: "LiftSendingPause" as const, scope: "domain" as const, scopeId: domainId, teamId, domainName: "example.com", now };
const paused: ReputationEvent = { type: "SendingPaused", data: pause };
const lifted: ReputationEvent = {
  type: "SendingPauseLifted",
  data: { scope: "domain", scopeId: domainId, teamId, domainName: "example.com", liftedAt: now },
};

describe("reputation decider", () => {
  it("pauses a clear scope once", () => {
    given(reputationDecider).when(pauseCommand).then([paused]);
    given(reputationDecider, [paused]).when(pauseCommand).then([]);
  });
  it("lifts a pause, and pauses again on a later crossing", () => {
    given(reputationDecider, [paused]).when(lift).then([lifted]);
    given(reputationDecider, [paused, lifted]).when(pauseCommand).then([paused]);
  });
  it("does not lift what is not paused, nor another team's pause", () => {
    given(reputationDecider).when(lift).thenError("not_found", "Sending from domain example.com is not paused");
    given(reputationDecider, [paused, lifted]).when(lift).thenError("not_found");
    given(reputationDecider, [paused])
      .when({ ...lift, teamId: otherTeam })
      .thenError("not_found");
  });
  it("remembers when the pause was lifted, where the watcher counts from", () => {
    expect(reputationDecider.evolve(reputationDecider.evolve(reputationDecider.initialState, paused), lifted)).toEqual({
      status: "clear",
      liftedAt: now,
    });
  });
  it("names the rate, its window and threshold, and the command that lifts it", () => {
    expect(sendingPausedMessage(pause)).toBe(
      "Sending from domain example.com is paused: bounce rate 12.0% of 250 emails over the last 24 h reached the 10.0% limit. " +
        `An operator lifts it with \`tidings reputation lift --team ${teamId} --domain example.com\`.`,
    );
  });
});

describe("pause verdict", () => {
  const thresholds = { bounceRate: 0.1, complaintRate: 0.005, minSends: 100 };
  it("pauses on a bounce rate at its threshold", () => {
    expect(pauseVerdict({ delivered: 90, bounced: 10, complained: 0 }, thresholds)).toEqual({
      metric: "bounce",
      rate: 0.1,
      threshold: 0.1,
      sends: 100,
    });
    expect(pauseVerdict({ delivered: 91, bounced: 9, complained: 0 }, thresholds)).toBeNull();
  });
  it("pauses on a complaint rate at its threshold", () => {
    expect(pauseVerdict({ delivered: 200, bounced: 0, complained: 1 }, thresholds)).toMatchObject({ metric: "complaint", rate: 0.005 });
    expect(pauseVerdict({ delivered: 201, bounced: 0, complained: 1 }, thresholds)).toBeNull();
  });
  it("says nothing below the minimum of emails", () => {
    expect(pauseVerdict({ delivered: 1, bounced: 1, complained: 0 }, thresholds)).toBeNull();
    expect(pauseVerdict({ delivered: 0, bounced: 0, complained: 0 }, { ...thresholds, minSends: 0 })).toBeNull();
  });
});
