import { QUARTER_HOUR_MS } from "@tidings/projections";

/**
 * The periods of `GET /emails/metrics`, in the caller's IANA timezone: the read model counts per quarter hour
 * (UTC), and every timezone's offset is a whole number of quarter hours, so each quarter hour falls in exactly
 * one local hour, day, week or month. Pure: the clock and the zone database are the only inputs.
 */
export const granularities = ["hourly", "daily", "weekly", "monthly"] as const;
export type Granularity = (typeof granularities)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A wall-clock time of a timezone. */
interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** Offsets by timezone and quarter hour: asking ICU costs tens of µs, and a request asks about the same few days. */
const offsets = new Map<string, Map<number, number>>();
const MAX_CACHED_OFFSETS = 200_000;

/** How far `tz` is ahead of UTC at an instant, in ms. Offsets change on quarter hours, so one answer serves each. */
function offsetAt(ms: number, tz: string): number {
  const quarter = Math.floor(ms / QUARTER_HOUR_MS);
  let known = offsets.get(tz);
  if (!known || known.size > MAX_CACHED_OFFSETS) offsets.set(tz, (known = new Map()));
  let offset = known.get(quarter);
  if (offset === undefined) known.set(quarter, (offset = zoneOffset(quarter * QUARTER_HOUR_MS, tz)));
  return offset;
}

function zoneOffset(ms: number, tz: string): number {
  let format = formats.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
    formats.set(tz, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(ms)) if (part.type !== "literal") parts[part.type] = Number(part.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!) - ms;
}

/** The wall clock of `tz` at an instant. */
function wallClock(ms: number, tz: string): WallClock {
  const wall = new Date(ms + offsetAt(ms, tz));
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
  };
}

/**
 * The instant a wall-clock time of `tz` names. A time skipped by a change to summer time is read with the
 * offset from before it; a time that happens twice, as its first occurrence.
 */
export function zonedInstant(tz: string, year: number, month: number, day: number, hour = 0, minute = 0): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const before = wall - offsetAt(wall - DAY_MS, tz);
  const after = wall - offsetAt(wall + DAY_MS, tz);
  const exact = [before, after].filter((ms) => ms + offsetAt(ms, tz) === wall).sort((a, b) => a - b);
  return exact[0] ?? before;
}

/** The start of the local period that holds `ms`. */
export function periodStart(ms: number, granularity: Granularity, tz: string): number {
  const wall = wallClock(ms, tz);
  switch (granularity) {
    case "hourly":
      // Back to the local hour's start on the same timeline: an hour that happens twice stays two periods.
      return Math.floor(ms / 60_000) * 60_000 - wall.minute * 60_000;
    case "daily":
      return zonedInstant(tz, wall.year, wall.month, wall.day);
    case "weekly": {
      // Weeks start on Monday (ISO 8601).
      const sinceMonday = (new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay() + 6) % 7;
      const monday = new Date(Date.UTC(wall.year, wall.month - 1, wall.day - sinceMonday));
      return zonedInstant(tz, monday.getUTCFullYear(), monday.getUTCMonth() + 1, monday.getUTCDate());
    }
    case "monthly":
      return zonedInstant(tz, wall.year, wall.month, 1);
  }
}

/** A step that always lands in the next period and never past it: local days last 23 to 25 hours, months 28 to 31 days. */
const steps: Record<Granularity, number> = { hourly: HOUR_MS, daily: 26 * HOUR_MS, weekly: 7 * DAY_MS + 2 * HOUR_MS, monthly: 32 * DAY_MS };

/** The start of the period after the one starting at `start`. */
export function nextPeriod(start: number, granularity: Granularity, tz: string): number {
  return periodStart(start + steps[granularity], granularity, tz);
}

/**
 * The starts of the periods that meet [from, to), in order, or undefined when there are more than `limit`.
 * The shortest period bounds the count first, so a huge range is refused without walking it.
 */
export function periodsOf(from: number, to: number, granularity: Granularity, tz: string, limit: number): number[] | undefined {
  const shortest: Record<Granularity, number> = {
    hourly: HOUR_MS / 2,
    daily: 23 * HOUR_MS,
    weekly: 7 * DAY_MS - HOUR_MS,
    monthly: 28 * DAY_MS - HOUR_MS,
  };
  if ((to - from) / shortest[granularity] > limit + 2) return undefined;
  const out: number[] = [];
  for (let start = periodStart(from, granularity, tz); start < to; start = nextPeriod(start, granularity, tz)) {
    if (out.length === limit) return undefined;
    out.push(start);
  }
  return out;
}

/** Whether `tz` is a timezone this runtime knows (IANA names, `UTC`). */
export function isTimezone(tz: string): boolean {
  // Intl also takes offsets such as `+05:30`, which name no zone and no summer time.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A period's start as ISO 8601 in the local time of `tz`, with its offset: `2026-07-01T00:00:00-04:00`. */
export function localIso(ms: number, tz: string): string {
  const wall = wallClock(ms, tz);
  const offset = offsetAt(ms, tz) / 60_000;
  const pad = (n: number) => String(n).padStart(2, "0");
  const sign = offset < 0 ? "-" : "+";
  const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:00${zone}`;
}
