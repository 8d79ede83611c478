import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { consumeRead } from "./consumeRead.js";

function aRead(items: number[]) {
  let cancelled = false;
  const read = Object.assign(Readable.from(items), {
    async cancel() {
      cancelled = true;
    },
  });
  return { read, cancelled: () => cancelled };
}

describe("consumeRead", () => {
  it("feeds every event of a read that runs to its end, without cancelling", async () => {
    const { read, cancelled } = aRead([1, 2, 3]);
    const seen: number[] = [];
    await consumeRead(read, (n) => seen.push(n) > 0);
    expect(seen).toEqual([1, 2, 3]);
    expect(cancelled()).toBe(false);
  });

  it("stops at the first event the taker declines and cancels the server call", async () => {
    const { read, cancelled } = aRead([1, 2, 3, 4]);
    const seen: number[] = [];
    await consumeRead(read, (n) => {
      seen.push(n);
      return n < 2;
    });
    expect(seen).toEqual([1, 2]);
    expect(cancelled()).toBe(true);
  });

  it("rejects with the read's error", async () => {
    const failing = Object.assign(
      new Readable({
        objectMode: true,
        read() {
          this.destroy(Object.assign(new Error("stream-not-found"), { type: "stream-not-found" }));
        },
      }),
      { cancel: async () => undefined },
    );
    await expect(consumeRead(failing, () => true)).rejects.toMatchObject({ type: "stream-not-found" });
  });
});
