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
  const body = encoding === "base64" ? Buffer.from(raw.toString("latin1"), "base64") : encoding === "quoted-printable" ? decodeQuotedPrintable(raw) : raw;
  return { headers, body };
}

export const first = (headers: Map<string, string[]>, name: string) => headers.get(name)?.[0];

/** `multipart/report; report-type=feedback-report` → `{type, params}`, parameter names lower-cased. */
export function contentType(entity: MimeEntity): { type: string; params: Record<string, string> } {
  const [type = "text/plain", ...rest] = (first(entity.headers, "content-type") ?? "text/plain").split(";");
  const params: Record<string, string> = {};
  for (const param of rest) {
    const eq = param.indexOf("=");
    if (eq > 0) params[param.slice(0, eq).trim().toLowerCase()] = param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
  }
  return { type: type.trim().toLowerCase(), params };
}

/** The parts of a multipart entity, each parsed; none for an entity that is not multipart. */
export function multipartParts(entity: MimeEntity): MimeEntity[] {
  const boundary = contentType(entity).params.boundary;
  if (!boundary) return [];
  const text = entity.body.toString("latin1");
  const delimiter = `--${boundary}`;
  const parts: MimeEntity[] = [];
  let at = text.indexOf(delimiter);
  while (at >= 0) {
    const start = text.indexOf("\n", at);
    if (start < 0 || text.startsWith("--", at + delimiter.length)) break;
    const next = text.indexOf(`\n${delimiter}`, start);
    const end = next < 0 ? text.length : next;
    parts.push(parseEntity(Buffer.from(text.slice(start + 1, end).replace(/\r$/, ""), "latin1")));
    at = next < 0 ? -1 : next + 1;
  }
  return parts;
}

function decodeQuotedPrintable(raw: Buffer): Buffer {
  const text = raw.toString("latin1").replace(/=\r?\n/g, "");
  return Buffer.from(text.replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), "latin1");
}
