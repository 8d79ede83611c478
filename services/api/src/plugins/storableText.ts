import type { FastifyInstance } from "fastify";
import { TidingsError } from "@tidings/core";

/**
 * PostgreSQL text cannot hold a NUL character, and a lone UTF-16 surrogate has no UTF-8 form: either one
 * in any field would fail deep in a write with a 500, possibly after part of the work was done. Every
 * body, path parameter and query value is checked once, up front, and refused with the field's name.
 * The walk is recursive: the body parser refuses nesting deeper than `maxJsonDepth` before this runs.
 */
export function findUnstorableText(value: unknown, path = ""): string | undefined {
  if (typeof value === "string") return value.includes("\u0000") || !value.isWellFormed() ? path || "body" : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnstorableText(item, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      // A bad key is reported as its object, so the message never echoes the bad text back.
      if (findUnstorableText(key)) return path || "body";
      const found = findUnstorableText(item, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

export function unstorableTextError(field: string): TidingsError {
  return new TidingsError("validation_error", `\`${field}\` must not contain a NUL character or an unpaired UTF-16 surrogate.`);
}

/** A callback hook, not an async one: every request runs it, and it has nothing to wait for. */
export function refuseUnstorableText(app: FastifyInstance): void {
  app.addHook("preValidation", (request, _reply, done) => {
    const field = findUnstorableText(request.params) ?? findUnstorableText(request.query) ?? findUnstorableText(request.body);
    done(field ? unstorableTextError(field) : undefined);
  });
}
