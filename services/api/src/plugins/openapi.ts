import { createRequire } from "node:module";
import type { FastifyInstance } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { createJsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

export const docsPrefix = "/docs";
export const openApiPath = "/openapi.json";

/** The routes that serve the documentation itself; they are not part of the API they describe. */
export function isDocumentationRoute(url: string): boolean {
  return url === openApiPath || url === docsPrefix || url.startsWith(`${docsPrefix}/`);
}

/**
 * OpenAPI 3.1 generated from the routes' zod schemas (DESIGN §6), served at `/openapi.json`, and a
 * Swagger UI page at `/docs` whose scripts and styles come from this server, so it works offline.
 * Registered on the root instance before any route, so swagger's onRoute hook sees every route.
 */
export function registerOpenApi(app: FastifyInstance): void {
  app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Tidings API",
        description: "Email delivery and audiences, wire-compatible with the Resend API.",
        version,
      },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
    },
    transform: createJsonSchemaTransform({ skipList: [openApiPath] }),
    transformObject: jsonSchemaTransformObject,
  });
  app.register(swaggerUi, { routePrefix: docsPrefix, staticCSP: false, uiConfig: { docExpansion: "list", deepLinking: true } });
  app.get(openApiPath, { schema: { hide: true } }, async () => app.swagger());
}
