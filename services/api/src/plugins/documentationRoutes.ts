export const docsPrefix = "/docs";
export const openApiPath = "/openapi.json";

/** The routes that serve the documentation itself; they are not part of the API they describe. */
export function isDocumentationRoute(url: string): boolean {
  return url === openApiPath || url === docsPrefix || url.startsWith(`${docsPrefix}/`);
}
