/**
 * A failure whose `name` is a stable code (the contract's error names, DESIGN §6). The API maps these once,
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
