import type { FastifyInstance, FastifyReply } from "fastify";
import { TidingsError } from "@tidings/core";

/**
 * Unknown paths answer 404 `not_found`; a known path asked with the wrong method answers 405
 * `method_not_allowed` with an `Allow` header (docs/wire-compatibility.md §3.2). Fastify's router alone cannot tell
 * the two apart, so the other methods are looked up for the same path.
 *
 * A fixed path is known too: `GET /emails/batch` must not be taken as `GET /emails/{id}` with the id
 * `batch` (a 422 about a UUID), nor `DELETE /contacts/imports` as the deletion of a contact named
 * `imports`. A request that a parametric route matched with values spelling out a fixed path is answered
 * 405 with that fixed path's methods, before any key is asked for, like every other 405.
 */
export function installNotFound(app: FastifyInstance): void {
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split("?", 1)[0]!;
    const methods = new Set(app.routeCatalog.map((route) => route.method));
    const allowed = [...methods].filter((method) => method !== request.method && app.findRoute({ method, url: path }));
    if (allowed.length > 0) throw methodNotAllowed(reply, request.method, path, allowed);
    throw new TidingsError("not_found", `The route ${request.method} ${path} does not exist.`);
  });

  const fixedPaths = new Map<string, string[]>();
  app.addHook("onReady", async () => {
    for (const { method, url } of app.routeCatalog) {
      if (!isFixed(url)) continue;
      const path = withoutTrailingSlash(url);
      fixedPaths.set(path, [...(fixedPaths.get(path) ?? []), method]);
    }
  });
  // A callback hook, not an async one: every request runs it, and it has nothing to wait for.
  app.addHook("onRequest", (request, reply, done) => {
    const template = request.routeOptions.url;
    if (template === undefined || isFixed(template)) return done();
    const path = withoutTrailingSlash(
      template.replace(/:(\w+)/g, (_, name: string) => String((request.params as Record<string, unknown>)[name] ?? "")),
    );
    const allowed = fixedPaths.get(path);
    done(allowed ? methodNotAllowed(reply, request.method, path, allowed) : undefined);
  });
}

function methodNotAllowed(reply: FastifyReply, method: string, path: string, allowed: readonly string[]): TidingsError {
  reply.header("allow", allowed.join(", "));
  return new TidingsError("method_not_allowed", `Method ${method} is not allowed on ${path}; use ${allowed.join(" or ")}.`);
}

const isFixed = (url: string) => !url.includes(":") && !url.includes("*");
const withoutTrailingSlash = (path: string) => (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path);
