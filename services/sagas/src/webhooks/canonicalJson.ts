/**
 * JSON with object keys in a fixed order, so every attempt and replay of a delivery sends the very same
 * bytes: the payload comes back from jsonb storage with its keys reordered. `type`, `created_at` and
 * `data` lead, as in the reference's examples; other keys follow in code-point order. The recursion is
 * bounded: what a client wrote into a payload (a custom event's) nests at most as deep as the api's body
 * parser allows, 64 levels.
 */
const leading = ["type", "created_at", "data"];

const rank = (key: string) => {
  const i = leading.indexOf(key);
  return i < 0 ? leading.length : i;
};

function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((key) => [key, ordered((value as Record<string, unknown>)[key])]));
}

export const canonicalJson = (value: unknown) => JSON.stringify(ordered(value));
