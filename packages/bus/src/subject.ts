/**
 * NATS subject filters, so that the in-process bus routes exactly as JetStream does. Subjects are tokens
 * separated by `.`; in a filter `*` matches one token and `>`, only as the last token, one or more.
 */
export function subjectMatches(filter: string, subject: string): boolean {
  const wanted = filter.split(".");
  const actual = subject.split(".");
  for (let i = 0; i < wanted.length; i++) {
    const token = wanted[i];
    if (token === ">") return actual.length > i;
    if (i >= actual.length) return false;
    if (token !== "*" && token !== actual[i]) return false;
  }
  return wanted.length === actual.length;
}

export function assertValidFilter(filter: string): void {
  const tokens = filter.split(".");
  tokens.forEach((token, i) => {
    if (token === "") throw new Error(`subject filter "${filter}" has an empty token`);
    if (token === ">" && i !== tokens.length - 1) throw new Error(`subject filter "${filter}" has ">" before its last token`);
    if (token !== "*" && token !== ">" && /[*>\s]/.test(token))
      throw new Error(`subject filter "${filter}" has a malformed token "${token}"`);
  });
}

/**
 * The same filter as an anchored regular expression that PostgreSQL (`subject ~ pattern`) and JavaScript
 * read alike, so a consumer can skip non-matching messages in SQL instead of fetching them.
 */
export function subjectPattern(filter: string): string {
  const tokens = filter.split(".").map((token) => {
    if (token === "*") return "[^.]+";
    if (token === ">") return ".+";
    return token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  });
  return `^${tokens.join("\\.")}$`;
}
