import { DomainError, type Decider } from "../decider.js";
import type { DeadLetterEvent, DeadLetterFacts } from "./events.js";

export type DeadLetterCommand =
  { type: "RetryDeadLetter"; letter: DeadLetterFacts; now: string } | { type: "DropDeadLetter"; letter: DeadLetterFacts; now: string };

export interface DeadLetterState {
  retried: boolean;
  dropped: boolean;
}

/**
 * A retry or a drop is recorded once. The handler records first and acts on the bus after, so an action
 * cut short by a crash is finished by ordering it again, which records nothing new. A retry cut short
 * before its publish leaves the letter on the bus: it may still be dropped, but a dropped letter is gone.
 */
export const deadLetterDecider: Decider<DeadLetterCommand, DeadLetterEvent, DeadLetterState> = {
  initialState: { retried: false, dropped: false },
  evolve(state, event) {
    switch (event.type) {
      case "DeadLetterRetried":
        return { ...state, retried: true };
      case "DeadLetterDropped":
        return { ...state, dropped: true };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "RetryDeadLetter":
        if (state.dropped) return new DomainError("not_found", "Dead letter not found: it was dropped");
        if (state.retried) return [];
        return [{ type: "DeadLetterRetried", data: { ...command.letter, retriedAt: command.now } }];
      case "DropDeadLetter":
        if (state.dropped) return [];
        return [{ type: "DeadLetterDropped", data: { ...command.letter, droppedAt: command.now } }];
    }
  },
};
