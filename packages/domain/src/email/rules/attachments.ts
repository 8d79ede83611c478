import { DomainError } from "../../decider.js";

/** Per email, counted after base64 like docs/wire-compatibility.md (docs/wire-compatibility.md §6.1: "≤40 MB per email after base64"). */
export const MAX_ATTACHMENTS_BASE64_BYTES = 40 * 1024 * 1024;

export interface AttachmentInput {
  content?: string | undefined;
  path?: string | undefined;
  filename?: string | undefined;
  content_type?: string | undefined;
  content_id?: string | undefined;
}

/** One character class, no groups: a grouped pattern overflows V8's regex stack on a 20 MB string. */
const isBase64 = (text: string) => text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);

const invalid = (index: number, why: string) => new DomainError("invalid_attachment", `Invalid \`attachments[${index}]\`: ${why}`);

/** The base64 size of `bytes` raw bytes: what a fetched `path` attachment counts against the limit. */
export const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;

/** Each attachment has base64 `content` or an http(s) `path`, and the inline ones a usable content id. */
export function checkAttachments(attachments: AttachmentInput[]): DomainError | undefined {
  let total = 0;
  for (const [index, attachment] of attachments.entries()) {
    const { content, path, filename, content_id } = attachment;
    if (content === undefined && path === undefined) return invalid(index, "it needs `content` or `path`.");
    if (content !== undefined && path !== undefined) return invalid(index, "give either `content` or `path`, not both.");
    if (content !== undefined) {
      const compact = content.replace(/\s+/g, "");
      if (!isBase64(compact)) return invalid(index, "`content` must be base64.");
      if (!filename) return invalid(index, "an attachment given by `content` needs a `filename`.");
      total += compact.length;
    }
    if (path !== undefined && !isHttpUrl(path)) return invalid(index, "`path` must be an http or https URL.");
    if (filename !== undefined && /[\r\n/\\]/.test(filename)) return invalid(index, "`filename` must not contain line breaks or slashes.");
    if (content_id !== undefined && !/^[\x21-\x3b\x3d\x3f-\x7e]{1,250}$/.test(content_id))
      return invalid(index, "`content_id` must be printable ASCII without `<` or `>`.");
  }
  return checkAttachmentsTotal(total);
}

export function checkAttachmentsTotal(base64Bytes: number): DomainError | undefined {
  if (base64Bytes <= MAX_ATTACHMENTS_BASE64_BYTES) return undefined;
  return new DomainError("invalid_attachment", "Attachments exceed the limit of 40 MB per email (after base64 encoding).");
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
