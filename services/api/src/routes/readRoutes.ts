import type { z } from "zod";
import type { FastifyRequest } from "fastify";
import { TidingsError } from "@tidings/core";
import type { Database } from "@tidings/postgres";
import type { ApiInstance } from "../app.js";
import { listSchema, type ListPage, type PageRequest } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { ok } from "../replies.js";

/**
 * How fastify types a validated request part from its schema's output. Spelled the same, it lets a helper
 * generic over a route's schemas hand the route's query or params on without widening them.
 */
type Validated<T> = [T] extends [undefined] ? unknown : T;

/** What an operation says about itself in the OpenAPI document, besides its tags. */
interface Operation {
  summary?: string;
}

/**
 * The two reads of a team's resource: the route that lists a page of the caller team's items, and one of them
 * or a 404. `list` stays generic over its route's schemas, so the query and the reply are checked against them.
 * `one` is not a route: fastify cannot check a handler whose reply type is a bare type parameter.
 */
export function teamReads(app: ApiInstance, database: Database, tags: string[]) {
  return {
    list<Query extends PageRequest, Item>(
      path: string,
      querystring: z.ZodType<Query>,
      item: z.ZodType<Item>,
      list: (database: Database, teamId: string, query: Validated<Query>) => Promise<ListPage<Item>>,
      operation: Operation = {},
    ): void {
      app.get(path, { schema: { tags, ...operation, querystring, response: { 200: listSchema(item) } } }, async (request, reply) =>
        ok(reply, await list(database, requireAuth(request).teamId, request.query)),
      );
    },

    /** One of the caller team's items, found by its key (an id, or a name the resource also accepts), or a 404. */
    async one<Key, Item>(
      request: FastifyRequest,
      find: (database: Database, teamId: string, key: Key) => Promise<Item | undefined>,
      key: Key,
      notFound: string,
    ): Promise<Item> {
      const found = await find(database, requireAuth(request).teamId, key);
      if (!found) throw new TidingsError("not_found", notFound);
      return found;
    },
  };
}
