import { describe, expect, it } from "vitest";
import { errorWithoutParameters } from "./logger.js";

describe("logged errors", () => {
  it("drop a failed statement's parameters and text, which can hold secrets, and keep the message", () => {
    const error = Object.assign(new Error("duplicate key"), { params: ["re_secret"], query: "INSERT … $1", code: "23505" });
    const logged = errorWithoutParameters(error);
    expect(logged).toMatchObject({ message: "duplicate key", code: "23505" });
    expect(JSON.stringify(logged)).not.toContain("re_secret");
    expect(logged).not.toHaveProperty("query");
  });
});
