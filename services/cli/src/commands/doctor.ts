import type { Config } from "@tidings/core";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";
import { printTable } from "../table.js";
import { installationChecks } from "../doctor/installationChecks.js";

/**
 * `tidings doctor`: one line per check of the installation, a mark, and on failure what to do; exit 1 when a
 * check fails. Not checked yet: each domain's DNS records and `audit verify` (#26).
 */
export async function doctor(config: Config, runtime: Runtime | undefined, json: boolean, out: CliOutput): Promise<number> {
  const results = await installationChecks(config, runtime);
  const code = results.every((r) => r.ok) ? 0 : 1;
  if (json) {
    out.out(JSON.stringify({ ok: code === 0, checks: results }));
    return code;
  }
  printTable(
    out,
    ["", "check", "result", "what to do"],
    results.map((r) => [r.ok ? "✓" : "✗", r.check, r.detail, r.fix ?? ""]),
  );
  return code;
}
