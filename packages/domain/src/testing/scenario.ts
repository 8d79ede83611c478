import { expect, it } from "vitest";
import { fold, isDomainError, type Decider, type DomainError } from "../decider.js";

/** The team a decider test acts for, and another team, whose commands must find nothing of the first's. */
export const teamId = "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f";
export const otherTeam = "0b6a5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d";
/** When a command is decided, in the wire format: a decider reads the time from its command, never a clock. */
export const now = "2026-11-23 10:00:00.000000+00";

/**
 * given events / when command / then events or error — the test shape for every decider (docs/architecture.md §3).
 * Test-only: it imports vitest, so no production module may import it.
 */
export function given<C, E, S>(decider: Decider<C, E, S>, events: E[] = []) {
  return {
    when(command: C) {
      const result = decider.decide(command, fold(decider, events));
      return {
        then(expected: E[]) {
          expect(isDomainError(result) ? { error: result.name, message: result.message } : result).toEqual(expected);
        },
        thenError(name: string, message?: string | RegExp) {
          expect(isDomainError(result)).toBe(true);
          const error = result as DomainError;
          expect(error.name).toBe(name);
          if (message) expect(error.message).toMatch(message);
        },
      };
    },
  };
}

/** A command a decider refuses, as a row of a test table: what the test is called, the command, the error's name and message. */
export type Refusal<C> = readonly [title: string, command: C, name: string, message?: string | RegExp];

/** One test per row: the row's command, decided on `events`, is refused with the row's error. */
export function itRefuses<C, E, S>(decider: Decider<C, E, S>, rows: Refusal<C>[], events: E[] = []): void {
  for (const [title, command, name, message] of rows) it(title, () => given(decider, events).when(command).thenError(name, message));
}
