/**
 * How many bits of guessing a secret could take at most: its length times the bits of the character classes
 * it uses. A secret of few distinct characters ("aaaa…", "abcabc…") is weak whatever its length: it was
 * typed, not generated. Generated secrets (`openssl rand -base64 32`, embedded mode's) pass.
 */
export function secretStrength(secret: string): { bits: number; strong: boolean } {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/];
  const sizes = [26, 26, 10, 33];
  const alphabet = classes.reduce((n, pattern, i) => n + (pattern.test(secret) ? sizes[i]! : 0), 0);
  const bits = Math.floor(secret.length * Math.log2(Math.max(alphabet, 1)));
  return { bits, strong: bits >= 128 && new Set(secret).size >= 12 };
}
