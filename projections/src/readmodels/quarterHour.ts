/** A bucket of the email metrics: every timezone's offset from UTC is a whole number of quarter hours. */
export const QUARTER_HOUR_MS = 15 * 60_000;

/** The start of the quarter hour (UTC) that holds `at`, an ISO 8601 time. */
export function quarterHour(at: string): string {
  const ms = Date.parse(at);
  return new Date(ms - (((ms % QUARTER_HOUR_MS) + QUARTER_HOUR_MS) % QUARTER_HOUR_MS)).toISOString();
}
