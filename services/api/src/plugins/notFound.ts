import type { FastifyInstance } from "fastify";
import { TidingsError } from "@tidings/core";

/**
 * Unknown paths answer 404 `not_found`; a known path asked with the wrong method answers 405
 * `method_not_allowed` with an `Allow` header (compat-reference §3.2). Fastify's router alone cannot tell
 * the two apart, so the other methods are looked up for the same path.
 */
export function installNotFound(app: FastifyInstance): void {
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split("?", 1)[0]!;
    const methods = new Set(app.routeCatalog.map((route) => route.method));
    const allowed = [...methods].filter((method) => method !== request.method && app.findRoute({ method, url: path }));
    if (allowed.length > 0) {
      reply.header("allow", allowed.join(", "));
      throw new TidingsError("method_not_allowed", `Method ${request.method} is not allowed on ${path}; use ${allowed.join(" or ")}.`);
    }
    throw new TidingsError("not_found", `The route ${request.method} ${path} does not exist.`);
  });
}
