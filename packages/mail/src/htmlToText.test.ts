import { describe, expect, it } from "vitest";
import { htmlToText } from "./htmlToText.js";

describe("htmlToText", () => {
  it("keeps links, drops images, and keeps headings in their case", () => {
    const text = htmlToText(
      '<h2>Your Order</h2><p>Track it <a href="https://x.test/t/1">here</a> or at <a href="https://x.test/t">https://x.test/t</a>.</p><img src="a.png" alt="logo">',
    );
    expect(text).toBe("Your Order\n\nTrack it here [https://x.test/t/1] or at https://x.test/t.");
  });

  it("wraps long lines at 78 characters", () => {
    const text = htmlToText(`<p>${"word ".repeat(40)}</p>`);
    expect(Math.max(...text.split("\n").map((line) => line.length))).toBeLessThanOrEqual(78);
  });
});
