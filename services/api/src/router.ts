/**
 * How fastify's router reads paths. The OpenAPI document states the same parameter limit, so a client
 * generated from it never builds a path the router refuses.
 */
export const routerOptions = {
  ignoreTrailingSlash: true,
  // The SDK joins base URL and path as strings, so a base URL ending in `/` yields `//emails` (docs/wire-compatibility.md §1.1).
  ignoreDuplicateSlashes: true,
  // Email addresses arrive as path segments (`/contacts/{email}`) and may be 254 characters long. The
  // router counts the decoded parameter; a longer one is answered 400 before any route runs.
  maxParamLength: 320,
};
