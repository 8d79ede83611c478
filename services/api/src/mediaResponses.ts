import { z } from "zod";

/**
 * Response schemas for the answers that are not JSON: the preference pages, the tracking pixel and
 * redirects, the downloads. In fastify's `content` form, so that both fastify and the OpenAPI document
 * see the real media type; a body sent as a string or Buffer is not serialized by it either way.
 */

/** An HTML page for a person, not a program. */
export function pageResponse(description: string) {
  return { description, content: { "text/html": { schema: z.string() } } };
}

/**
 * Bytes of a given media type. `*\/*` when the type is the file's own (an attachment keeps the type it
 * was sent with); the schema then says only that the body is bytes.
 */
export function bytesResponse(description: string, mediaType: string) {
  const schema = mediaType.includes("*") ? z.string() : z.string().meta({ contentMediaType: mediaType });
  return { description, content: { [mediaType]: { schema } } };
}
