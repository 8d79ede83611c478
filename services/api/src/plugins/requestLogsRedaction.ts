/**
 * What a stored request log never holds. API key tokens (`POST /api-keys` answers one) and webhook signing
 * secrets are credentials; attachment content is the customer's data and can be 40 MB. The `Authorization`
 * header is never stored at all: a log keeps bodies, not headers.
 */
const secretKeys = new Set(["token", "signing_secret"]);

export const redacted = "[redacted]";

/**
 * How deep redaction follows a body. Request bodies are bounded at parse time (`maxJsonDepth`), but a
 * reply is parsed here again, and the log writer must never be where a stack overflows; what lies deeper
 * is stored as `[redacted]`, so a secret hidden down there is not kept either.
 */
export const maxRedactionDepth = 100;

/** A copy of `value` with every secret replaced by `[redacted]`; `value` itself is left untouched. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth >= maxRedactionDepth) return redacted;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (secretKeys.has(key)) copy[key] = redacted;
    else if (key === "attachments" && Array.isArray(field)) copy[key] = field.map((attachment) => redactAttachment(attachment, depth + 2));
    else copy[key] = redactSecrets(field, depth + 1);
  }
  return copy;
}

function redactAttachment(attachment: unknown, depth: number): unknown {
  const copy = redactSecrets(attachment, depth);
  if (copy !== null && typeof copy === "object" && !Array.isArray(copy) && "content" in copy) {
    return { ...copy, content: redacted };
  }
  return copy;
}

/** Only a reply that names a secret key is parsed and rewritten; every other reply is stored as sent. */
const mayHoldSecret = /"(token|signing_secret|attachments)"/;

/**
 * The JSON text to store for a request or reply body, or null when there is none. A reply arrives as the
 * JSON text fastify sent; anything else (a stream, a buffer) is not a JSON reply and is not stored.
 */
export function storedRequestBody(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  return JSON.stringify(redactSecrets(body));
}

export function storedReplyBody(payload: unknown): string | null {
  if (typeof payload !== "string" || payload === "") return null;
  if (!mayHoldSecret.test(payload)) return payload;
  try {
    return JSON.stringify(redactSecrets(JSON.parse(payload)));
  } catch {
    return null;
  }
}
