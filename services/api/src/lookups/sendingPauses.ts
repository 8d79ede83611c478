import { TidingsError } from "@tidings/core";
import { sendingPausedMessage } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { sendingPauseOf } from "@tidings/projections";

/** Refuses a send while its team, or its sending domain, is paused (README, "Reputation guardrails"). */
export type SendingPauseCheck = (teamId: string, domainId: string | null) => Promise<void>;

export function sendingPauseCheck(database: Database): SendingPauseCheck {
  const pauseOf = sendingPauseOf(database);
  return async (teamId, domainId) => {
    const pause = await pauseOf(teamId, domainId);
    if (pause) throw new TidingsError("sending_paused", sendingPausedMessage(pause));
  };
}
