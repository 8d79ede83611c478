/**
 * A `datetime-local` field's value as ISO 8601 in UTC. The field has no zone; the forms' labels say UTC,
 * so the value is taken as `Z`, with seconds when the browser sent none.
 */
export const utcFromDatetimeLocal = (local: string) => (local.length === 16 ? `${local}:00Z` : `${local}Z`);
