const quote = 0x22;
const backslash = 0x5c;
const openers = new Set([0x5b, 0x7b]);
const closers = new Set([0x5d, 0x7d]);

/**
 * Whether JSON text nests arrays and objects more than `limit` levels deep, found in one pass without
 * parsing. Brackets inside strings do not count; a string's end is found with `indexOf`, so a body that is
 * mostly one long string (base64 attachment content) costs little more than a scan for its closing quote.
 * Text that is not JSON gives some answer; the parser refuses it afterwards.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === quote) i = closingQuote(text, i);
    else if (openers.has(code)) {
      if (++depth > limit) return true;
    } else if (closers.has(code)) depth--;
  }
  return false;
}

/** The index of the quote that closes the string opened at `open`, or the text's end when none does. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let escapes = 0;
    while (text.charCodeAt(at - 1 - escapes) === backslash) escapes++;
    if (escapes % 2 === 0) return at;
  }
}
