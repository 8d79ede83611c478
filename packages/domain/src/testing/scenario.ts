import { expect } from "vitest";
import { fold, isDomainError, type Decider, type DomainError } from "../decider.js";

/**
 * given events / when command / then events or error — the test shape for every decider (STYLE).
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
