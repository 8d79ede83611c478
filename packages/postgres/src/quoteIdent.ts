/** A name as a quoted SQL identifier: any character, any case. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
