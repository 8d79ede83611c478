import { DomainError } from "../decider.js";

const HOUR_MS = 3_600_000;
/** docs/wire-compatibility.md §6.1: Resend's document makes a link last 48 hours unless asked for less, and never longer. */
export const DEFAULT_SHARE_LIFETIME_MS = 48 * HOUR_MS;
export const MAX_SHARE_LIFETIME_MS = 48 * HOUR_MS;

const unitMs: Record<string, number> = { s: 1000, m: 60_000, h: HOUR_MS, d: 24 * HOUR_MS };
const units: Record<string, string> = {
  s: "s",
  sec: "s",
  secs: "s",
  second: "s",
  seconds: "s",
  m: "m",
  min: "m",
  mins: "m",
  minute: "m",
  minutes: "m",
  h: "h",
  hr: "h",
  hrs: "h",
  hour: "h",
  hours: "h",
  d: "d",
  day: "d",
  days: "d",
};
const duration = /^(\d{1,6}(?:\.\d{1,3})?)\s*([a-z]+)$/;

const unreadable = () =>
  new DomainError("validation_error", "Invalid `expires_in` field. Use a duration such as `10m`, `2 hours` or `1 day`, at most 48 hours.");

/**
 * How long a share link lasts, from the `expires_in` the caller wrote: a number and a unit, as Resend's
 * document writes them (`10m`, `2 hours`, `1 day`). Absent, the longest: 48 hours. Whole seconds, since
 * the link carries its expiry in seconds.
 */
export function parseShareLifetime(text: string | undefined): number | DomainError {
  if (text === undefined) return DEFAULT_SHARE_LIFETIME_MS;
  const match = duration.exec(text.trim().toLowerCase());
  const unit = match ? units[match[2]!] : undefined;
  if (!match || !unit) return unreadable();
  const ms = Math.floor((Number(match[1]) * unitMs[unit]!) / 1000) * 1000;
  if (ms < 1000) return new DomainError("validation_error", "The `expires_in` field must be at least one second.");
  if (ms > MAX_SHARE_LIFETIME_MS) return new DomainError("validation_error", "The `expires_in` field cannot exceed 48 hours.");
  return ms;
}
