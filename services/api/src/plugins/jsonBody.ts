import type { FastifyInstance } from "fastify";
import { TidingsError } from "@tidings/core";

const blank = /^\s*$/;

/**
 * The `resend` SDK sends `Content-Type: application/json` with no body on body-less POSTs (publish, verify,
 * cancel; compat-reference §1.2), which fastify's own parser rejects. An empty body parses to `undefined`;
 * anything else goes through fastify's parser, which also refuses `__proto__` and `constructor.prototype`
 * keys. The parser reads at most the route's `bodyLimit`.
 *
 * JSON is the only body the API takes: fastify's text/plain parser is removed so that other types get
 * 415. A route that takes another type (multipart imports) adds its parser in its own scope.
 */
export function acceptJsonBodies(app: FastifyInstance): void {
  const strict = app.getDefaultJsonParser("error", "error");
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    if (blank.test(text)) return done(null, undefined);
    strict(request, text, (error, value) => (error ? done(invalidJson(text)) : done(null, value)));
  });
}

/** Parses again only on failure, to tell the client where its JSON breaks. */
function invalidJson(text: string): TidingsError {
  try {
    JSON.parse(text);
    return new TidingsError("invalid_json", "The request body must not contain `__proto__` or `constructor.prototype` keys.");
  } catch (error) {
    return new TidingsError("invalid_json", `The request body is not valid JSON: ${(error as Error).message}.`);
  }
}
