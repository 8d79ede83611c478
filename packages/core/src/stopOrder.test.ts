import { describe, expect, it } from "vitest";
import { StopOrder } from "./stopOrder.js";

describe("StopOrder", () => {
  it("stops the parts in the reverse of the order they were added, once however often it is asked", async () => {
    const parts = new StopOrder();
    const stopped: string[] = [];
    for (const name of ["stores", "sagas", "api"]) parts.add(name, () => void stopped.push(name));
    await Promise.all([parts.stop(() => {}), parts.stop(() => {})]);
    expect(stopped).toEqual(["api", "sagas", "stores"]);
  });

  it("reports a part that fails to stop and still stops the next", async () => {
    const parts = new StopOrder();
    const stopped: string[] = [];
    const failures: string[] = [];
    parts.add("stores", () => void stopped.push("stores"));
    parts.add("sagas", async () => Promise.reject(new Error("stuck")));
    await parts.stop((error, part) => failures.push(`${part}: ${(error as Error).message}`));
    expect(failures).toEqual(["sagas: stuck"]);
    expect(stopped).toEqual(["stores"]);
  });

  it("names, while it stops, the parts not stopped yet and what each still holds", async () => {
    const parts = new StopOrder();
    let release!: () => void;
    parts.add("stores", () => {});
    parts.add(
      "sagas",
      () => new Promise<void>((resolve) => (release = resolve)),
      () => ["emails under way: e1"],
    );
    parts.add("api", () => {});
    parts.add(
      "projections",
      () => {},
      () => [],
    );
    expect(parts.unfinished()).toEqual(["projections", "api", "sagas (emails under way: e1)", "stores"]);
    const stopping = parts.stop(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(parts.unfinished()).toEqual(["sagas (emails under way: e1)", "stores"]);
    release();
    await stopping;
    expect(parts.unfinished()).toEqual([]);
  });
});
