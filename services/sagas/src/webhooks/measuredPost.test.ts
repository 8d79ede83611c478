import { describe, expect, it } from "vitest";
import { attemptOutcome } from "./measuredPost.js";

describe("attemptOutcome", () => {
  it("names a 2xx succeeded, a failed answer by its class, and no answer as such", () => {
    expect(attemptOutcome({ succeeded: true, statusCode: 204 })).toBe("succeeded");
    expect(attemptOutcome({ succeeded: false, statusCode: 302 })).toBe("3xx");
    expect(attemptOutcome({ succeeded: false, statusCode: 410 })).toBe("4xx");
    expect(attemptOutcome({ succeeded: false, statusCode: 503 })).toBe("5xx");
    expect(attemptOutcome({ succeeded: false, statusCode: null })).toBe("no_answer");
  });
});
