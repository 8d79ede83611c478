import { describe, expect, it } from "vitest";
import { START, type Position } from "../port.js";
import type { AllPage } from "./allReader.js";
import { sharedPageReads } from "./sharedPageReads.js";

const at = (n: number): Position => ({ commit: BigInt(n), prepare: 0n });

function countingReader() {
  const reads: string[] = [];
  const read = async (after: Position, limit: number | undefined): Promise<AllPage> => {
    reads.push(`${after.commit}/${limit}`);
    return { events: [], next: after, exhausted: true, horizon: after.commit + 1n };
  };
  return { reads, read };
}

describe("page reads of $all shared within a turn of the event loop", () => {
  it("given two identical reads asked in one turn, when they run, then one read answers both", async () => {
    const { reads, read } = countingReader();
    const shared = sharedPageReads(read);
    const [a, b] = await Promise.all([shared(at(5), 500), shared(at(5), 500)]);
    expect(reads).toEqual(["5/500"]);
    expect(a).toBe(b);
  });

  it("given reads from other positions or of other sizes, when they run, then each is its own read", async () => {
    const { reads, read } = countingReader();
    const shared = sharedPageReads(read);
    await Promise.all([shared(at(5), 500), shared(at(6), 500), shared(at(5), 100), shared(START, 500, { streamCategory: ["email"] })]);
    expect(reads.sort()).toEqual(["0/500", "5/100", "5/500", "6/500"]);
  });

  it("given a read asked after an identical one went out, when it runs, then it reads again (a newer snapshot)", async () => {
    const { reads, read } = countingReader();
    const shared = sharedPageReads(read);
    await shared(at(5), 500);
    await shared(at(5), 500);
    expect(reads).toEqual(["5/500", "5/500"]);
  });
});
