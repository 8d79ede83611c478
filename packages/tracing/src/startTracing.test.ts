import { describe, expect, it } from "vitest";
import { tracesUrl } from "./startTracing.js";

describe("the OTLP traces URL", () => {
  it("is the base endpoint's v1/traces, with or without a trailing slash, under any path", () => {
    expect(tracesUrl("http://collector:4318")).toBe("http://collector:4318/v1/traces");
    expect(tracesUrl("http://collector:4318/")).toBe("http://collector:4318/v1/traces");
    expect(tracesUrl("https://otlp.example.test/tenant/7/")).toBe("https://otlp.example.test/tenant/7/v1/traces");
  });
});
