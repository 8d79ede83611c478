import type { FastifyContextConfig, FastifyInstance, FastifySchema } from "fastify";

export interface CatalogRoute {
  method: string;
  url: string;
  schema: FastifySchema | undefined;
  config: FastifyContextConfig | undefined;
  /** The route's own body limit in bytes, or undefined when it keeps the app's. */
  bodyLimit: number | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Every route registered on the app, in registration order, one entry per method. */
    readonly routeCatalog: readonly CatalogRoute[];
  }
}

/**
 * Records routes as they are registered. The 405 answer, the OpenAPI document's error responses, and the
 * tests that hold every route to the contract (a schema each, no 500 on bad input) read this list instead
 * of a hand-kept one, so a route added later is covered without editing them.
 */
export function catalogRoutes(app: FastifyInstance): void {
  const routes: CatalogRoute[] = [];
  app.decorate("routeCatalog", routes);
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) {
      routes.push({ method, url: route.url, schema: route.schema, config: route.config, bodyLimit: route.bodyLimit });
    }
  });
}
