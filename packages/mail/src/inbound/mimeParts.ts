/** A MIME entity split into its header fields (names lower-cased, folding undone) and its decoded body. */
export interface MimeEntity {
  headers: Map<string, string[]>;
  body: Buffer;
}

const CRLF_CRLF = /\r?\n\r?\n/;

/** Header fields as RFC 5322 writes them; also reads the fields of a feedback or delivery-status report. */
export function parseHeaderFields(text: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const line of text.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const list = fields.get(name) ?? [];
    list.push(line.slice(colon + 1).trim());
    fields.set(name, list);
  }
  return fields;
}

export function parseEntity(bytes: Buffer): MimeEntity {
  const text = bytes.toString("latin1");
  const match = CRLF_CRLF.exec(text);
  const headerText = match ? text.slice(0, match.index) : text;
  const headers = parseHeaderFields(headerText);
  const raw = match ? bytes.subarray(match.index + match[0].length) : Buffer.alloc(0);
  const encoding = first(headers, "content-transfer-encoding")?.toLowerCase();
  const body =
    encoding === "base64"
      ? Buffer.from(raw.toString("latin1"), "base64")
      : encoding === "quoted-printable"
        ? decodeQuotedPrintable(raw)
        : raw;
  return { headers, body };
}

export const first = (headers: Map<string, string[]>, name: string) => headers.get(name)?.[0];

/** A parameter: a name, then a quoted string (which may hold `;`) or a token; comments in parentheses are skipped. */
const parameter = /;\s*([^=\s;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s(]*))/g;

/** `multipart/report; report-type=feedback-report` → `{type, params}`, parameter names lower-cased. */
export function contentType(entity: MimeEntity): { type: string; params: Record<string, string> } {
  const value = first(entity.headers, "content-type") ?? "text/plain";
  const semicolon = value.indexOf(";");
  const type = (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  const params: Record<string, string> = {};
  if (semicolon >= 0)
    for (const m of value.slice(semicolon).matchAll(parameter))
      params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!;
  return { type: type || "text/plain", params };
}

/** The parts of a multipart entity, each parsed; none for an entity that is not multipart. */
export function multipartParts(entity: MimeEntity): MimeEntity[] {
  const boundary = contentType(entity).params.boundary;
  if (!boundary) return [];
  const text = entity.body.toString("latin1");
  // A delimiter line is the boundary alone on its line (trailing space allowed), or the closing `--`: a
  // line starting with the boundary and more (`--b` before `--bx`) is not one.
  const escaped = boundary.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const delimiters = [...text.matchAll(new RegExp(`(?:^|\\n)--${escaped}(--)?[ \\t]*(?=\\r?\\n|$)`, "g"))];
  const parts: MimeEntity[] = [];
  for (let i = 0; i < delimiters.length; i++) {
    const delimiter = delimiters[i]!;
    if (delimiter[1] === "--") break;
    const start = text.indexOf("\n", delimiter.index + delimiter[0].length);
    // A report cut short (no closing delimiter) still has its last part, up to the end.
    const end = delimiters[i + 1]?.index ?? text.length;
    if (start < 0 || start >= end) continue;
    parts.push(parseEntity(Buffer.from(text.slice(start + 1, end).replace(/\r$/, ""), "latin1")));
  }
  return parts;
}

function decodeQuotedPrintable(raw: Buffer): Buffer {
  const text = raw.toString("latin1").replace(/=\r?\n/g, "");
  return Buffer.from(
    text.replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    "latin1",
  );
}

/**
 * The addresses in header values: tokens with an `@`. Split, not matched with a pattern: a report is
 * anyone's input, and a pattern over a long token without `@` can take quadratic time. Capped, as no
 * honest report names kilobytes of recipients.
 */
export const addressTokens = (values: string[]) =>
  values.flatMap((value) => value.slice(0, 4096).split(/[\s<>,;"()]+/)).filter((token) => /^[^@]+@[^@]+$/.test(token));
