const unitMs = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A century: past any retention anyone keeps, and still a valid Date when taken from now. */
export const LONGEST_DURATION_MS = 36_500 * unitMs.d;

/**
 * A length of time as an operator writes it: a whole number and one unit, `s`, `m`, `h` or `d` (`90d`,
 * `12h`, `30m`, `10s`), in milliseconds; `0` or `off` for none, null. Undefined when the text is not
 * one. `0d` is not taken for `off`: read as "keep nothing", it would shred everything at the next sweep.
 */
export function parseDuration(text: string): number | null | undefined {
  const value = text.trim().toLowerCase();
  if (value === "0" || value === "off") return null;
  const match = /^(\d{1,9})([smhd])$/.exec(value);
  if (!match) return undefined;
  const ms = Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
  return ms > 0 && ms <= LONGEST_DURATION_MS ? ms : undefined;
}
