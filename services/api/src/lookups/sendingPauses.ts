import { sharedRead, TidingsError } from "@tidings/core";
import { sendingPausedMessage } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { activeSendingPauses } from "@tidings/projections";

/** Refuses a send while its team, or its sending domain, is paused (README, "Reputation guardrails"). */
export type SendingPauseCheck = (teamId: string, domainId: string | null) => Promise<void>;

/**
 * The pauses in force, read at most once a second for every send of the process: the table holds a row per
 * paused team or domain, a few at most, and a send must not pay a round trip for what is nearly always none.
 * A pause or a lift therefore takes effect up to a second after its read model shows it.
 */
export function sendingPauseCheck(database: Database): SendingPauseCheck {
  const pauses = sharedRead(() => activeSendingPauses(database), 1_000);
  return async (teamId, domainId) => {
    const found = (await pauses()).find((p) => p.teamId === teamId && (p.scope === "team" || p.scopeId === domainId));
    if (found) throw new TidingsError("sending_paused", sendingPausedMessage(found));
  };
}
