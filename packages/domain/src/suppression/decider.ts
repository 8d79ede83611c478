import { DomainError, type Decider } from "../decider.js";
import { checkContactEmail, normalContactEmail } from "../contact/rules.js";
import type { SuppressionEvent, SuppressionOrigin } from "./events.js";

/** One stream per address and team, named by a deterministic id, so the same address always meets its history. */
export const suppressionStream = (suppressionId: string) => `suppression-${suppressionId}`;
export const SUPPRESSION_BATCH_MAX = 100;

export type SuppressionCommand =
  | {
      type: "AddSuppression";
      suppressionId: string;
      teamId: string;
      email: string;
      origin: SuppressionOrigin;
      sourceId: string | null;
      now: string;
    }
  /**
   * `listed`: the suppression list shows the address. A hard bounce puts an address there straight from
   * `EmailBounced`, without this stream, so the list is what says a bounce can be removed.
   */
  | { type: "RemoveSuppression"; suppressionId: string; teamId: string; email: string; listed: boolean; now: string };

export type SuppressionState = { status: "none" | "removed" } | { status: "active"; teamId: string; email: string };

export const suppressionDecider: Decider<SuppressionCommand, SuppressionEvent, SuppressionState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    switch (event.type) {
      case "SuppressionAdded":
        return { status: "active", teamId: event.data.teamId, email: event.data.email };
      case "SuppressionRemoved":
        return { status: "removed" };
    }
  },
  decide(command, state) {
    const { suppressionId, teamId, now } = command;
    const mine = state.status === "active" && state.teamId === teamId;
    if (command.type === "RemoveSuppression" && !mine && !command.listed) return new DomainError("not_found", "Suppression not found");
    const invalid = checkContactEmail(command.email);
    if (invalid) return invalid;
    const email = normalContactEmail(command.email);
    switch (command.type) {
      case "AddSuppression":
        if (mine) return [];
        return [
          {
            type: "SuppressionAdded",
            data: { suppressionId, teamId, email, origin: command.origin, sourceId: command.sourceId, createdAt: now },
          },
        ];
      case "RemoveSuppression":
        return [{ type: "SuppressionRemoved", data: { suppressionId, teamId, email, removedAt: now } }];
    }
  },
};
