import { contentType, first, multipartParts, parseEntity, type MimeEntity } from "./mimeParts.js";

const isAttachment = (entity: MimeEntity) => /^\s*attachment/i.test(first(entity.headers, "content-disposition") ?? "");

function hasTextPart(entity: MimeEntity, depth: number): boolean {
  const { type } = contentType(entity);
  if (type === "text/plain") return !isAttachment(entity);
  if (!type.startsWith("multipart/") || depth > 8) return false;
  return multipartParts(entity).some((part) => hasTextPart(part, depth + 1));
}

/**
 * Whether a message has a text/plain body of its own. A parser that makes text from the html when there is
 * none would otherwise show a `text` the sender never wrote (docs/wire-compatibility.md §6.3: `text` is null then).
 */
export const hasPlainTextBody = (raw: Buffer) => hasTextPart(parseEntity(raw), 0);
