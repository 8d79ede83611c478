import type { Config, Logger } from "@tidings/core";
import { projectionStatus } from "@tidings/projections";
import { sagaDurables } from "@tidings/sagas";
import { openRuntime } from "../runtime.js";
import { projections } from "../projections.js";
import { printTable } from "../table.js";

/**
 * `tidings status`: what an operator checks first. Each projection's checkpoint and lag, and each saga's
 * dead letters: messages that exhausted their deliveries and wait for a person (docs/architecture.md §5).
 */
export async function status(config: Config, logger: Logger, json: boolean): Promise<void> {
  const runtime = await openRuntime(config, logger);
  try {
    const read = await projectionStatus({ store: runtime.store, database: runtime.database, projections });
    const dead = await Promise.all(sagaDurables.map(async (durable) => ({ durable, letters: await runtime.bus.deadLetters(durable, 20) })));
    if (json) {
      console.log(JSON.stringify({ projections: read, deadLetters: dead }, (_, v) => (typeof v === "bigint" ? v.toString() : v)));
      return;
    }
    printTable(
      ["projection", "state", "checkpoint", "lag"],
      read.map((s) => [
        s.name,
        s.state,
        s.checkpoint ?? "-",
        `${s.lagEvents}${s.lagCapped ? "+" : ""} events, ${s.lagSeconds.toFixed(1)} s`,
      ]),
    );
    console.log("");
    printTable(
      ["saga consumer", "dead letters", "newest"],
      dead.map(({ durable, letters }) => {
        const newest = letters[letters.length - 1];
        return [
          durable,
          String(letters.length) + (letters.length === 20 ? "+" : ""),
          newest ? `${newest.subject} ${newest.msgId}: ${newest.error}` : "-",
        ];
      }),
    );
  } finally {
    await runtime.close();
  }
}
