/**
 * Whether a database call failed because a relation it names does not exist (SQLSTATE 42P01). For Tidings
 * that is a read model not there yet: no projector has created it on a new database, or the version serving
 * since an upgrade predates it while its successor is built.
 */
export function isUndefinedTable(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "42P01";
}
