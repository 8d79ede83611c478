import { describe, expect, it, vi } from "vitest";

const setFlagsFromString = vi.fn();
vi.mock("node:v8", () => ({ setFlagsFromString }));
const { limitHeapGrowth } = await import("./heapGrowth.js");

describe("the heap's growth", () => {
  it("is fixed at the setting's percent, and left to V8 at 0", () => {
    setFlagsFromString.mockClear();
    limitHeapGrowth(100, []);
    expect(setFlagsFromString).toHaveBeenCalledWith("--heap-growing-percent=100");
    setFlagsFromString.mockClear();
    limitHeapGrowth(0, []);
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });

  it("stays as node was told on its command line", () => {
    setFlagsFromString.mockClear();
    limitHeapGrowth(100, ["--heap-growing-percent=300"]);
    limitHeapGrowth(100, ["--heap_growing_percent", "50"]);
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });
});
