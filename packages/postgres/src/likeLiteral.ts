/** Text taken literally in a LIKE pattern: `%`, `_` and the escape itself escaped with PostgreSQL's default escape, `\`. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
