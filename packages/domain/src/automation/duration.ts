const unitMs: Record<string, number> = {
  s: 1_000,
  sec: 1_000,
  secs: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

/** The longest a `delay` or a `wait_for_event` timeout may park a run. */
export const MAX_DURATION_MS = 365 * 86_400_000;

/**
 * A step's `duration` or `timeout` (docs/wire-compatibility.md §6.14 types it only as a string): a count and a unit,
 * `30s`, `5 minutes`, `2 hours`, `1 day`, `2 weeks`. Undefined when it is not one, or not in 1 s–365 days.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = unitMs[match[2]!.toLowerCase()];
  if (unit === undefined) return undefined;
  const ms = Math.round(Number(match[1]) * unit);
  return ms >= 1_000 && ms <= MAX_DURATION_MS ? ms : undefined;
}
