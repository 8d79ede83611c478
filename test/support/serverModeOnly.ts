import { describe } from "vitest";
import { testMode } from "@tidings/postgres";

/** Why a test that runs roles as separate processes cannot run embedded. */
const separateProcesses = "an embedded data directory admits one process (PGlite)";

/**
 * Whether this tier runs in server mode. In embedded mode it says on the console that `what` is skipped and
 * why, so that a skip is never silent.
 */
export function serverModeOnly(what: string, because: string): boolean {
  if (testMode() === "server") return true;
  console.warn(`${what} skipped in embedded mode: ${because}; it runs with TIDINGS_TEST_MODE=server`);
  return false;
}

/** The describe block of a crash test (`what`) that kills a separate sagas process: server mode only. */
export function describeKillingSagas(what: string, title: string, body: () => void): void {
  describe.skipIf(!serverModeOnly(what, `it kills a separate sagas process, and ${separateProcesses}`))(title, body);
}
