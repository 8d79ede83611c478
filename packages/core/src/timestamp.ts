/**
 * The wire format for every timestamp Tidings returns: `YYYY-MM-DD HH:MM:SS.ffffff+00`, always UTC.
 * JavaScript dates hold milliseconds, so the last three digits of the fraction come from the optional
 * microsecond remainder (PostgreSQL keeps microseconds and passes them through).
 */
export function formatTimestamp(date: Date, microsRemainder = 0): string {
  const ms = date.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastPrefix =
      `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
      `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
    lastSecond = second;
  }
  const micros = (ms - second * 1000) * 1000 + Math.max(0, Math.min(999, Math.trunc(microsRemainder)));
  return `${lastPrefix}.${pad(micros, 6)}+00`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

// The date and time to the second of the last call: the request log formats a timestamp per request, and
// requests arriving within one second share all of it but the fraction, which alone takes a quarter of the time.
let lastSecond = Number.NaN;
let lastPrefix = "";

const wireFormat = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6})\+00$/;

/** Parses the wire format back; returns undefined for anything else. */
export function parseTimestamp(text: string): Date | undefined {
  const m = wireFormat.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, f] = m.map(Number) as number[];
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, Math.floor(f! / 1000)));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A clock is injected wherever time matters, so deciders and tests never read the wall clock themselves. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
