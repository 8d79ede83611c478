import { testMode } from "@tidings/postgres";

/** Why a test that runs roles as separate processes cannot run embedded. */
export const separateProcesses = "an embedded data directory admits one process (PGlite)";

/**
 * Whether this tier runs in server mode. In embedded mode it says on the console that `what` is skipped and
 * why, so that a skip is never silent.
 */
export function serverModeOnly(what: string, because: string): boolean {
  if (testMode() === "server") return true;
  console.warn(`${what} skipped in embedded mode: ${because}; it runs with TIDINGS_TEST_MODE=server`);
  return false;
}
