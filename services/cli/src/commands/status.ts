import { projectionStatus } from "@tidings/projections";
import { sagaDurables } from "@tidings/sagas";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";
import { projections } from "../projections.js";
import { printTable } from "../table.js";
import { operationCell } from "./projections.js";

/**
 * `tidings status`: what an operator checks first. Each projection's checkpoint and lag, and each saga's
 * dead letters: messages that exhausted their deliveries and wait for a person (docs/architecture.md §5), the
 * newest named by the id `tidings deadletters` takes.
 */
export async function status(runtime: Runtime, json: boolean, out: CliOutput): Promise<number> {
  const read = await projectionStatus({ store: runtime.store, database: runtime.database, projections });
  const dead = await Promise.all(sagaDurables.map(async (durable) => ({ durable, letters: await runtime.bus.deadLetters(durable, 20) })));
  if (json) {
    out.out(JSON.stringify({ projections: read, deadLetters: dead }, (_, v) => (typeof v === "bigint" ? v.toString() : v)));
    return 0;
  }
  printTable(
    out,
    ["projection", "state", "checkpoint", "lag", "last verify"],
    read.map((s) => [
      s.name,
      s.state,
      s.checkpoint ?? "-",
      `${s.lagEvents}${s.lagCapped ? "+" : ""} events, ${s.lagSeconds.toFixed(1)} s`,
      operationCell(s.lastVerify),
    ]),
  );
  out.out("");
  printTable(
    out,
    ["saga consumer", "dead letters", "newest"],
    dead.map(({ durable, letters }) => {
      const newest = letters[letters.length - 1];
      return [
        durable,
        String(letters.length) + (letters.length === 20 ? "+" : ""),
        newest ? `${durable}-${newest.id} ${newest.subject}: ${newest.error}` : "-",
      ];
    }),
  );
  return 0;
}
