import { formatTimestamp, isUuid, systemClock } from "@tidings/core";
import { teamIdForName } from "@tidings/api";
import { DomainRejection, handleCommand, operationMetadata } from "@tidings/commands";
import { percent, reputationDecider, reputationStream, type SendingPause } from "@tidings/domain";
import { activeSendingPauses } from "@tidings/projections";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";
import { printTable } from "../table.js";
import { UsageError } from "../usageError.js";

/** `tidings reputation list [--json]` (README, "Reputation guardrails"): the teams and domains paused now, oldest first. */
export async function reputationList(runtime: Runtime, json: boolean, out: CliOutput): Promise<number> {
  const pauses = await activeSendingPauses(runtime.database);
  if (json) {
    out.out(JSON.stringify({ pauses }));
    return 0;
  }
  if (pauses.length === 0) {
    out.out("no sending paused");
    return 0;
  }
  printTable(
    out,
    ["scope", "team", "domain", "rate", "limit", "emails", "window", "paused at"],
    pauses.map((p) => [
      p.scope,
      p.teamId,
      p.domainName ?? "",
      `${p.metric} ${percent(p.rate)}`,
      percent(p.threshold),
      String(p.sends),
      `${p.windowHours} h`,
      p.pausedAt,
    ]),
  );
  return 0;
}

/**
 * `tidings reputation lift --team <name or id> [--domain <name>]`: lifts the team's pause, or its domain's,
 * recorded as `SendingPauseLifted` with the actor `cli`. Outcomes before the lift no longer count towards a
 * pause, so the same bounces do not pause it again; new ones over the threshold do.
 */
export async function reputationLift(runtime: Runtime, target: { team: string | undefined; domain: string | undefined }, out: CliOutput) {
  if (!target.team) throw new UsageError("reputation lift needs --team <name or id>, and --domain <name> for a domain's pause");
  const teamId = isUuid(target.team) ? target.team : teamIdForName(target.team.trim());
  const domain = target.domain?.trim().toLowerCase();
  const pause = (await activeSendingPauses(runtime.database)).find(
    (p) => p.teamId === teamId && (domain === undefined ? p.scope === "team" : p.scope === "domain" && p.domainName === domain),
  );
  const what = domain === undefined ? `team ${target.team}` : `domain ${domain} of team ${target.team}`;
  if (!pause) throw new UsageError(`sending from ${what} is not paused: tidings reputation list shows the pauses`);
  try {
    await handleCommand({
      store: runtime.store,
      streamId: reputationStream(pause.scopeId),
      decider: reputationDecider,
      command: { type: "LiftSendingPause", ...scopeOf(pause), now: formatTimestamp(systemClock.now()) },
      metadata: operationMetadata("cli", systemClock, { teamId }),
    });
  } catch (error) {
    // Lifted by another operator since the read model was read.
    if (error instanceof DomainRejection) throw new UsageError(`sending from ${what} is not paused`);
    throw error;
  }
  out.out(`lifted the pause of ${what}; its ${pause.metric} rate counts again from now`);
  return 0;
}

const scopeOf = ({ scope, scopeId, teamId, domainName }: SendingPause) => ({ scope, scopeId, teamId, domainName });
