import { DomainError, type Decider } from "../decider.js";
import { createdBefore } from "../teamResource.js";
import type { TeamEvent } from "./events.js";

export const teamStream = (teamId: string) => `team-${teamId}`;

/** Requests per second a team gets until an operator changes it (docs/wire-compatibility.md §4: the current docs value). */
export const DEFAULT_RATE_LIMIT = 10;

export type TeamCommand =
  | { type: "CreateTeam"; teamId: string; name: string; now: string }
  | { type: "SetTeamRateLimit"; teamId: string; requestsPerSecond: number }
  | { type: "SetTeamBroadcastRate"; teamId: string; emailsPerSecond: number | null };

export type TeamState =
  { exists: false } | { exists: true; teamId: string; name: string; requestsPerSecond: number; broadcastEmailsPerSecond: number | null };

export const teamDecider: Decider<TeamCommand, TeamEvent, TeamState> = {
  initialState: { exists: false },
  evolve(state, event) {
    switch (event.type) {
      case "TeamCreated":
        return {
          exists: true,
          teamId: event.data.teamId,
          name: event.data.name,
          requestsPerSecond: DEFAULT_RATE_LIMIT,
          broadcastEmailsPerSecond: null,
        };
      case "TeamRateLimitSet":
        return state.exists ? { ...state, requestsPerSecond: event.data.requestsPerSecond } : state;
      case "TeamBroadcastRateSet":
        return state.exists ? { ...state, broadcastEmailsPerSecond: event.data.emailsPerSecond } : state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "CreateTeam":
        if (state.exists) return createdBefore(state.name === command.name, "Team");
        return [{ type: "TeamCreated", data: { teamId: command.teamId, name: command.name, createdAt: command.now } }];
      case "SetTeamRateLimit":
        if (!state.exists) return new DomainError("not_found", "Team not found");
        if (!Number.isInteger(command.requestsPerSecond) || command.requestsPerSecond < 1)
          return new DomainError("validation_error", "The rate limit must be a positive whole number of requests per second.");
        if (state.requestsPerSecond === command.requestsPerSecond) return [];
        return [{ type: "TeamRateLimitSet", data: { teamId: state.teamId, requestsPerSecond: command.requestsPerSecond } }];
      case "SetTeamBroadcastRate": {
        if (!state.exists) return new DomainError("not_found", "Team not found");
        const rate = command.emailsPerSecond;
        if (rate !== null && (!Number.isInteger(rate) || rate < 1))
          return new DomainError("validation_error", "The broadcast rate must be a positive whole number of emails per second.");
        if (state.broadcastEmailsPerSecond === rate) return [];
        return [{ type: "TeamBroadcastRateSet", data: { teamId: state.teamId, emailsPerSecond: rate } }];
      }
    }
  },
};
