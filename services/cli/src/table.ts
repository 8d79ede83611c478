import type { CliOutput } from "./cliOutput.js";

/** Writes rows as aligned columns under a header, for the operator commands. */
export function printTable(out: CliOutput, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  for (const row of [header, ...rows])
    out.out(
      row
        .map((cell, i) => (cell ?? "").padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    );
}
