import { describe, expect, it } from "vitest";
import { isPublicRoute } from "./auth.js";

describe("isPublicRoute", () => {
  it("is true only for an empty security list and the documentation", () => {
    expect(isPublicRoute("/health", { security: [] })).toBe(true);
    expect(isPublicRoute("/docs/static/index.html", undefined)).toBe(true);
    expect(isPublicRoute("/openapi.json", undefined)).toBe(true);
    expect(isPublicRoute("/api-keys", undefined)).toBe(false);
    expect(isPublicRoute("/api-keys", { security: [{ bearer: [] }] })).toBe(false);
  });
});
