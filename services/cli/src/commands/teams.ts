import { isUuid, systemClock } from "@tidings/core";
import { teamIdForName } from "@tidings/api";
import { DomainRejection, handleCommand, operationMetadata } from "@tidings/commands";
import { teamDecider, teamStream, type TeamCommand } from "@tidings/domain";
import type { EventStore, Position } from "@tidings/eventstore";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";
import { UsageError } from "../usageError.js";

/**
 * `tidings teams set-rate-limit <team> <n>`: the team's requests per second (docs/wire-compatibility.md §4: 10 by default).
 * `<team>` is the team's name or id. The api applies the new limit once a projector has recorded it
 * (at once when `serve` runs) and its one-second cache of the limit has expired.
 */
export async function teamsSetRateLimit(runtime: Runtime, team: string, limit: string, out: CliOutput): Promise<number> {
  if (!/^[1-9][0-9]{0,8}$/.test(limit)) throw new UsageError("set-rate-limit needs a whole number of requests per second, at least 1");
  const { teamId, changed } = await setTeamRateLimit(runtime.store, team, Number(limit));
  out.out(`team ${team} (${teamId}): ${limit} requests per second${changed ? "" : " (unchanged)"}`);
  return 0;
}

/** A team's setting as decided: `changed` is false where the team had it already; `position` is where it landed. */
export interface TeamSettingOutcome {
  teamId: string;
  changed: boolean;
  position?: Position;
}

/**
 * Decides a setting of `team` (its name or id) as the operator's. A team that does not exist, or a value
 * the team refuses, is a UsageError.
 */
async function setOfTeam(store: EventStore, team: string, setting: (teamId: string) => TeamCommand): Promise<TeamSettingOutcome> {
  const teamId = isUuid(team) ? team : teamIdForName(team.trim());
  try {
    const command = setting(teamId);
    const { events, position } = await handleCommand({
      store,
      streamId: teamStream(teamId),
      decider: teamDecider,
      command,
      metadata: operationMetadata("cli", systemClock, { teamId }),
    });
    return { teamId, changed: events.length > 0, ...(position ? { position } : {}) };
  } catch (error) {
    if (error instanceof DomainRejection)
      throw new UsageError(error.error.name === "not_found" ? `there is no team "${team}"` : error.message);
    throw error;
  }
}

/** Appends TeamRateLimitSet unless the team already has this limit; a team that does not exist is a UsageError. */
export const setTeamRateLimit = (store: EventStore, team: string, requestsPerSecond: number): Promise<TeamSettingOutcome> =>
  setOfTeam(store, team, (teamId) => ({ type: "SetTeamRateLimit", teamId, requestsPerSecond }));

/**
 * `tidings teams set-broadcast-rate <team> <n|default>`: the emails per second the team's broadcasts are
 * handed to delivery; `default` goes back to BROADCAST_EMAILS_PER_SECOND. Running fan-outs take it up at
 * their next batch.
 */
export async function teamsSetBroadcastRate(runtime: Runtime, team: string, rate: string, out: CliOutput): Promise<number> {
  if (rate !== "default" && !/^[1-9][0-9]{0,5}$/.test(rate))
    throw new UsageError("set-broadcast-rate needs a whole number of emails per second, at least 1, or `default`");
  const emailsPerSecond = rate === "default" ? null : Number(rate);
  const { teamId, changed } = await setOfTeam(runtime.store, team, (teamId) => ({
    type: "SetTeamBroadcastRate",
    teamId,
    emailsPerSecond,
  }));
  const shown = rate === "default" ? `the default ${runtime.config.BROADCAST_EMAILS_PER_SECOND}` : rate;
  out.out(`team ${team} (${teamId}): broadcasts at ${shown} emails per second${changed ? "" : " (unchanged)"}`);
  return 0;
}
