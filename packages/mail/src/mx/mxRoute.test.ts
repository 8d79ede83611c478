import { describe, expect, it } from "vitest";
import { mxHostsInOrder } from "./mxRoute.js";

describe("mxHostsInOrder", () => {
  it("tries the most preferred (lowest) exchange first", () => {
    const route = mxHostsInOrder("a.test", [
      { exchange: "backup.a.test", priority: 20 },
      { exchange: "primary.a.test", priority: 5 },
    ]);
    expect(route).toEqual({ kind: "hosts", hosts: ["primary.a.test", "backup.a.test"] });
  });

  it("spreads equal preferences in random order", () => {
    const records = [
      { exchange: "one.a.test", priority: 10 },
      { exchange: "two.a.test", priority: 10 },
    ];
    let n = 0;
    const alternating = () => (n++ % 2 === 0 ? 0.9 : 0.1);
    expect(mxHostsInOrder("a.test", records, alternating)).toEqual({ kind: "hosts", hosts: ["two.a.test", "one.a.test"] });
    expect(mxHostsInOrder("a.test", records, () => 0.5)).toEqual({ kind: "hosts", hosts: ["one.a.test", "two.a.test"] });
  });

  it("falls back to the domain itself when it has no MX (implicit MX, RFC 5321 §5.1)", () => {
    expect(mxHostsInOrder("a.test", [])).toEqual({ kind: "hosts", hosts: ["a.test"] });
  });

  it("bounces for a null MX (RFC 7505)", () => {
    expect(mxHostsInOrder("a.test", [{ exchange: "", priority: 0 }])).toMatchObject({ kind: "bounced" });
    expect(mxHostsInOrder("a.test", [{ exchange: ".", priority: 0 }])).toMatchObject({ kind: "bounced" });
  });
});
