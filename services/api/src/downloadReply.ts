import type { FastifyReply } from "fastify";

const mediaType = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;
/** Images a browser shows and runs nothing from; anything else (html, svg, …) downloads. */
const inlineImages = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * Sends bytes someone else chose (an attachment, a received message) from the api's own origin, so they
 * cannot run there: the content type is checked, never sniffed, and sandboxed, and only plain images are
 * shown inline. A type a header cannot carry would otherwise make the reply throw.
 */
export function sendDownload(
  reply: FastifyReply,
  bytes: Buffer,
  file: { contentType: string; disposition: string | null; filename: string },
) {
  const type = mediaType.test(file.contentType) ? file.contentType.toLowerCase() : "application/octet-stream";
  const disposition = file.disposition === "inline" && inlineImages.has(type) ? "inline" : "attachment";
  return reply
    .code(200)
    .type(type)
    .header("x-content-type-options", "nosniff")
    .header("content-security-policy", "sandbox")
    .header("content-disposition", `${disposition}; filename*=UTF-8''${encodeURIComponent(file.filename)}`)
    .send(bytes);
}

/** The failures of a signed download beyond those of every route (for the OpenAPI document). */
export const downloadErrors = {
  invalid_download_url: "The URL's signature is not valid for this path, or it has expired.",
  not_found: "The file is gone (the email or its attachment was deleted).",
  service_unavailable: "The read models are not created yet (a new install whose projector has not started).",
};
