/**
 * JSON with object keys sorted and no whitespace, as JSON.stringify would write the value otherwise
 * (toJSON, undefined and functions dropped from objects, null in arrays). Keys sort by their UTF-8 bytes,
 * so the SQL twin in the integrity migration (`eventstore.canonical_json`, keys `COLLATE "C"`) writes the
 * same text for a value read back from jsonb. Numbers are written without an exponent, as PostgreSQL's
 * numeric is: jsonb keeps the decimal a writer sent, and a JavaScript writer sends the shortest one, so
 * both sides write the same digits.
 */
export function canonicalJson(value: unknown): string {
  return write(value) ?? "null";
}

function write(value: unknown): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? plainNumber(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "object":
      break;
    default:
      return undefined;
  }
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === "function") return write((json as () => unknown).call(value));
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? "null").join(",")}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  const keys = Object.keys(record).sort();
  // UTF-16 order is UTF-8 order unless a key holds a character from U+D800 on.
  if (keys.some((key) => /[\ud800-\uffff]/.test(key))) keys.sort(byUtf8);
  for (const key of keys) {
    const text = write(record[key]);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(",")}}`;
}

/** UTF-16 order, except that surrogates (characters past U+FFFF) sort after U+E000–U+FFFF, as in UTF-8. */
export function byUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return utf8Rank(x) - utf8Rank(y);
  }
  return a.length - b.length;
}

function utf8Rank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}

/** `1e+21` → `1000000000000000000000`, `1e-7` → `0.0000001`; -0 is 0, as JSON.stringify writes it. */
function plainNumber(n: number): string {
  const text = String(n);
  const e = text.indexOf("e");
  if (e < 0) return text === "-0" ? "0" : text;
  const sign = text.startsWith("-") ? "-" : "";
  const mantissa = text.slice(sign.length, e);
  const exponent = Number(text.slice(e + 1));
  const dot = mantissa.indexOf(".");
  const digits = mantissa.replace(".", "");
  const point = (dot < 0 ? mantissa.length : dot) + exponent;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
