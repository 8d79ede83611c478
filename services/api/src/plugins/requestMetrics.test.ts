import { describe, expect, it } from "vitest";
import { requestLabels } from "./requestMetrics.js";

describe("requestLabels", () => {
  it("labels a request by its route's template, never its path", () => {
    expect(requestLabels("/emails/:id", "GET", 200)).toEqual({ route: "/emails/:id", method: "GET", status: "200" });
  });

  it("labels a request no route matched as unmatched, so probed paths add no series", () => {
    expect(requestLabels(undefined, "GET", 404)).toEqual({ route: "unmatched", method: "GET", status: "404" });
  });

  it("labels a method outside HTTP's usual ones as other", () => {
    expect(requestLabels(undefined, "PROPFIND", 405).method).toBe("other");
    expect(requestLabels("/emails", "POST", 200).method).toBe("POST");
  });
});
