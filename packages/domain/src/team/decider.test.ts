import { describe, it } from "vitest";
import { given, now, teamId } from "../testing/scenario.js";
import { teamDecider } from "./decider.js";
import type { TeamEvent } from "./events.js";

const created: TeamEvent = { type: "TeamCreated", data: { teamId, name: "Acme", createdAt: now } };

describe("team decider", () => {
  it("creates a team", () => given(teamDecider).when({ type: "CreateTeam", teamId, name: "Acme", now }).then([created]));

  it("treats a repeated create of the same team as done", () =>
    given(teamDecider, [created]).when({ type: "CreateTeam", teamId, name: "Acme", now }).then([]));

  it("sets a rate limit", () =>
    given(teamDecider, [created])
      .when({ type: "SetTeamRateLimit", teamId, requestsPerSecond: 50 })
      .then([{ type: "TeamRateLimitSet", data: { teamId, requestsPerSecond: 50 } }]));

  it("records nothing when the limit is unchanged", () =>
    given(teamDecider, [created]).when({ type: "SetTeamRateLimit", teamId, requestsPerSecond: 10 }).then([]));

  it("rejects a limit below one", () =>
    given(teamDecider, [created]).when({ type: "SetTeamRateLimit", teamId, requestsPerSecond: 0 }).thenError("validation_error"));

  it("rejects a limit for a team that does not exist", () =>
    given(teamDecider).when({ type: "SetTeamRateLimit", teamId, requestsPerSecond: 5 }).thenError("not_found"));

  it("sets a broadcast rate, goes back to the default with null, and rejects a rate below one", () => {
    const set: TeamEvent = { type: "TeamBroadcastRateSet", data: { teamId, emailsPerSecond: 200 } };
    given(teamDecider, [created]).when({ type: "SetTeamBroadcastRate", teamId, emailsPerSecond: 200 }).then([set]);
    given(teamDecider, [created, set]).when({ type: "SetTeamBroadcastRate", teamId, emailsPerSecond: 200 }).then([]);
    given(teamDecider, [created, set])
      .when({ type: "SetTeamBroadcastRate", teamId, emailsPerSecond: null })
      .then([{ type: "TeamBroadcastRateSet", data: { teamId, emailsPerSecond: null } }]);
    given(teamDecider, [created]).when({ type: "SetTeamBroadcastRate", teamId, emailsPerSecond: 0 }).thenError("validation_error");
  });
});
