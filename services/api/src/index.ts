export * from "./app.js";
export * from "./errorTable.js";
export { errorBody, type ErrorBody } from "./plugins/errors.js";
export { isDocumentationRoute } from "./plugins/openapi.js";
export type { CatalogRoute } from "./plugins/routeCatalog.js";
export * from "./pagination.js";
export * from "./replies.js";
export * from "./shutdown.js";
export type { ReadinessChecks } from "./routes/health.js";
