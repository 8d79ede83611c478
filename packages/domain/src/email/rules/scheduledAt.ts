// The English parser alone: the package's root, whose `parseDate` is this same one, loads every locale
// (266 modules, about 3 MB of heap and 10 MB resident in each process).
import { parseDate } from "chrono-node/en";
import { DomainError } from "../../decider.js";

export const MAX_SCHEDULE_DAYS = 30;

const unreadable = () =>
  new DomainError("validation_error", "Invalid `scheduled_at` field. Use an ISO 8601 date or a phrase such as `in 1 hour`.");

const isoLike = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

/**
 * ISO 8601 (or our wire timestamp) or natural language (`in 1 hour`, `tomorrow at 9am`), read against the
 * caller's `now` in UTC so the result is the same on every machine. Must be in the future and at most 30
 * days ahead (docs/wire-compatibility.md §6.1).
 */
export function parseScheduledAt(text: string, now: Date): Date | DomainError {
  const trimmed = text.trim();
  if (trimmed.length > 200) return unreadable();
  const parsed = isoLike.test(trimmed)
    ? new Date(trimmed.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00"))
    : parseDate(trimmed, { instant: now, timezone: 0 }, { forwardDate: true });
  if (!parsed || Number.isNaN(parsed.getTime())) return unreadable();
  if (parsed.getTime() <= now.getTime()) return new DomainError("validation_error", "The `scheduled_at` field must be in the future.");
  if (parsed.getTime() - now.getTime() > MAX_SCHEDULE_DAYS * 24 * 3600 * 1000)
    return new DomainError("validation_error", `The \`scheduled_at\` field must be at most ${MAX_SCHEDULE_DAYS} days in the future.`);
  return parsed;
}
