import { percent, scopeLabel } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { activeSendingPauses } from "@tidings/projections";
import type { CheckResult } from "./installationChecks.js";

/** The teams and domains whose new sends are refused for their bounce or complaint rate (README, "Reputation guardrails"). */
export async function sendingPausesCheck(database: Database): Promise<CheckResult> {
  const check = "sending pauses";
  const pauses = await activeSendingPauses(database);
  if (pauses.length === 0) return { check, ok: true, detail: "none" };
  return {
    check,
    ok: false,
    detail: pauses.map((p) => `${scopeLabel(p)} paused at ${p.metric} rate ${percent(p.rate)} (limit ${percent(p.threshold)})`).join("; "),
    fix: "find why its mail bounces or is called spam (its list, its content), then tidings reputation lift --team <team> [--domain <name>]",
  };
}
