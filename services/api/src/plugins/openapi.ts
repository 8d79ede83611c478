import { createRequire } from "node:module";
import type { FastifyInstance } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { createJsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { docsPrefix, openApiPath } from "./documentationRoutes.js";
import { completeDocument, type OpenApiDocument } from "./openapiDocument.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

/**
 * OpenAPI 3.1 generated from the routes' zod schemas (docs/architecture.md §6), served at `/openapi.json`, and a
 * Swagger UI page at `/docs` whose scripts and styles come from this server, so it works offline.
 * Registered on the root instance before any route, so swagger's onRoute hook sees every route.
 * `guarded` says whether the app checks keys and applies the request policies (rate limit, idempotency),
 * whose failures the document then lists.
 */
export function registerOpenApi(app: FastifyInstance, options: { guarded: boolean }): void {
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
    transformObject: (input) =>
      completeDocument(jsonSchemaTransformObject(input) as unknown as OpenApiDocument, {
        catalog: app.routeCatalog,
        guarded: options.guarded,
        defaultBodyLimit: app.initialConfig.bodyLimit!,
      }) as unknown as ReturnType<typeof jsonSchemaTransformObject>,
  });
  app.register(swaggerUi, { routePrefix: docsPrefix, staticCSP: false, uiConfig: { docExpansion: "list", deepLinking: true } });
  app.get(openApiPath, { schema: { hide: true } }, async () => app.swagger());
}
