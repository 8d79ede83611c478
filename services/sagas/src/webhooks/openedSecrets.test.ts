import { createSealer } from "@tidings/core";
import { describe, expect, it } from "vitest";
import { rememberingOpenedSecrets } from "./openedSecrets.js";

describe("rememberingOpenedSecrets", () => {
  it("opens each sealed secret once, and still opens every one right past its bound", () => {
    const sealer = createSealer("s".repeat(40), "test");
    let opens = 0;
    const counting = { ...sealer, openText: (sealed: string) => (opens++, sealer.openText(sealed)) };
    const remembering = rememberingOpenedSecrets(counting, 2);
    const [a, b, c] = ["whsec_a", "whsec_b", "whsec_c"].map((text) => sealer.seal(text));

    expect([a, a, b, a].map((s) => remembering.openText(s!))).toEqual(["whsec_a", "whsec_a", "whsec_b", "whsec_a"]);
    expect(opens).toBe(2);
    expect(remembering.openText(c!)).toBe("whsec_c");
    expect(remembering.openText(a!)).toBe("whsec_a");
    expect(opens).toBe(4);
  });

  it("refuses a value that does not open, and does not remember it", () => {
    const remembering = rememberingOpenedSecrets(createSealer("s".repeat(40), "test"));
    expect(() => remembering.openText("v1.bad.bad.bad")).toThrow();
    expect(() => remembering.openText("v1.bad.bad.bad")).toThrow();
  });
});
