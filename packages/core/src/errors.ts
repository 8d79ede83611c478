/**
 * A failure whose `name` is a stable code (the contract's error names, docs/architecture.md §6). The API maps these once,
 * in one table, to `{statusCode, message, name}`; everything else becomes a 500 without internals.
 */
export class TidingsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = code;
  }
}

/** What `lookup` found, or the `not_found` error saying `message`: the first check of a command on something named. */
export async function orNotFound<Found>(lookup: Promise<Found | undefined>, message: string): Promise<Found> {
  const found = await lookup;
  if (found === undefined) throw new TidingsError("not_found", message);
  return found;
}
