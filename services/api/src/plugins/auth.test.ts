import { describe, expect, it } from "vitest";
import { TidingsError } from "@tidings/core";
import { errorTable } from "../errorTable.js";
import { assertSendingDomain, isPublicRoute, type RequestAuth } from "./auth.js";

const sender = (domainId: string | null): RequestAuth => ({ teamId: "t", apiKeyId: "k", permission: "sending_access", domainId });

describe("assertSendingDomain", () => {
  it("lets a key without a domain send from any of the team's domains", () => {
    expect(() => assertSendingDomain(sender(null), "d1")).not.toThrow();
    expect(() => assertSendingDomain(sender(null), undefined)).not.toThrow();
  });

  it("lets a domain-restricted key send from its domain only, refused as 403 validation_error", () => {
    expect(() => assertSendingDomain(sender("d1"), "d1")).not.toThrow();
    for (const other of ["d2", undefined]) {
      let thrown: unknown;
      try {
        assertSendingDomain(sender("d1"), other);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TidingsError);
      expect(errorTable[(thrown as TidingsError).code]).toEqual({ statusCode: 403, name: "validation_error" });
    }
  });
});

describe("isPublicRoute", () => {
  it("is true only for an empty security list and the documentation", () => {
    expect(isPublicRoute("/health", { security: [] } as never)).toBe(true);
    expect(isPublicRoute("/docs/static/index.html", undefined)).toBe(true);
    expect(isPublicRoute("/openapi.json", undefined)).toBe(true);
    expect(isPublicRoute("/api-keys", undefined)).toBe(false);
    expect(isPublicRoute("/api-keys", { security: [{ bearer: [] }] } as never)).toBe(false);
  });
});
