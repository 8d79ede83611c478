import type { FastifyInstance } from "fastify";
import { TidingsError } from "@tidings/core";
import { nestsDeeperThan } from "./jsonDepth.js";

const blank = /^\s*$/;

/**
 * The deepest nesting of arrays and objects a JSON body may have. The API's own deepest body (an
 * automation's steps with their conditions) nests under 10 levels. The bound is what makes every later walk
 * over request data safe to write recursively: the unstorable-text check, log redaction, webhook payloads
 * built from custom events, event metadata.
 */
export const maxJsonDepth = 64;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The `resend` SDK sends `Content-Type: application/json` with no body on body-less POSTs (publish, verify,
 * cancel; docs/wire-compatibility.md §1.2), which fastify's own parser rejects. An empty body parses to
 * `undefined`; anything else goes through fastify's parser, which also refuses `__proto__` and
 * `constructor.prototype` keys. The parser reads at most the route's `bodyLimit`.
 *
 * The bytes are decoded strictly: a lenient decode would turn invalid UTF-8 into U+FFFD and store it,
 * delivering a subject the client never wrote. Nesting is measured on the text before parsing, so no
 * deep structure is ever built.
 *
 * JSON is the only body the API takes: fastify's text/plain parser is removed so that other types get
 * 415. A route that takes another type (multipart imports) adds its parser in its own scope.
 */
export function acceptJsonBodies(app: FastifyInstance): void {
  const strict = app.getDefaultJsonParser("error", "error");
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(new TidingsError("invalid_json", "The request body is not valid UTF-8."));
    }
    if (blank.test(text)) return done(null, undefined);
    if (nestsDeeperThan(text, maxJsonDepth)) {
      return done(
        new TidingsError("invalid_json", `The request body nests arrays and objects deeper than the limit of ${maxJsonDepth} levels.`),
      );
    }
    void strict(request, text, (error, value) => (error ? done(invalidJson(text)) : done(null, value)));
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
