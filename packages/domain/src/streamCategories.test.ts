import { describe, expect, it } from "vitest";
import { streamOfCategory } from "./streamCategories.js";

describe("stream categories", () => {
  it("name each category by the prefix its stream function writes", () => {
    for (const [category, stream] of Object.entries(streamOfCategory)) expect([category, stream("x")]).toEqual([category, `${category}-x`]);
  });
});
