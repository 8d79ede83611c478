import { DomainError, type Decider } from "../decider.js";
import { percent } from "./rates.js";
import type { PauseScope, ReputationEvent, SendingPause } from "./events.js";

export type ReputationCommand =
  | ({ type: "PauseSending" } & Omit<SendingPause, "pausedAt"> & { now: string })
  | { type: "LiftSendingPause"; scope: PauseScope; scopeId: string; teamId: string; domainName: string | null; now: string };

export type ReputationState = { status: "clear"; liftedAt: string | null } | { status: "paused"; pause: SendingPause };

/** What the scope is called in a message: `team <id>` or `domain example.com`. */
export const scopeLabel = (pause: Pick<SendingPause, "scope" | "scopeId" | "domainName">) =>
  pause.scope === "team" ? `team ${pause.scopeId}` : `domain ${pause.domainName ?? pause.scopeId}`;

/** The refusal a paused scope answers a send with: the rate, its window and threshold, and how it is lifted. */
export function sendingPausedMessage(pause: SendingPause): string {
  const lift = pause.scope === "team" ? `--team ${pause.teamId}` : `--team ${pause.teamId} --domain ${pause.domainName ?? pause.scopeId}`;
  return (
    `Sending from ${scopeLabel(pause)} is paused: ${pause.metric} rate ${percent(pause.rate)} of ${pause.sends} emails ` +
    `over the last ${pause.windowHours} h reached the ${percent(pause.threshold)} limit. ` +
    `An operator lifts it with \`tidings reputation lift ${lift}\`.`
  );
}

/**
 * A scope's pause: set once while clear (a second notice of the same crossing adds nothing), lifted by an
 * operator only while set. The watcher counts outcomes from `liftedAt` on, so the bounces that caused a pause
 * do not set it again right after it is lifted.
 */
export const reputationDecider: Decider<ReputationCommand, ReputationEvent, ReputationState> = {
  initialState: { status: "clear", liftedAt: null },
  evolve(_state, event) {
    switch (event.type) {
      case "SendingPaused":
        return { status: "paused", pause: event.data };
      case "SendingPauseLifted":
        return { status: "clear", liftedAt: event.data.liftedAt };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "PauseSending": {
        if (state.status === "paused") return [];
        const { type: _, now, ...pause } = command;
        return [{ type: "SendingPaused", data: { ...pause, pausedAt: now } }];
      }
      case "LiftSendingPause": {
        const { scope, scopeId, teamId, domainName, now } = command;
        if (state.status !== "paused" || state.pause.teamId !== teamId)
          return new DomainError("not_found", `Sending from ${scopeLabel(command)} is not paused`);
        return [{ type: "SendingPauseLifted", data: { scope, scopeId, teamId, domainName, liftedAt: now } }];
      }
    }
  },
};
