/** Prints rows as aligned columns under a header, for the operator commands. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  for (const row of [header, ...rows])
    console.log(
      row
        .map((cell, i) => (cell ?? "").padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    );
}
